import { MemoryFilters, isKmError } from '@km/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisMemoryDb, toFloat32Blob } from '../src/index.js';
import { type RecordedCommand, type Reply, type RespRecorder, startRespRecorder } from './resp-recorder.js';

// A RESP2 server that records the commands node-redis sends for each operation and answers
// like Redis with the Query Engine would (shapes from the FT.* command reference). Shapes only:
// whether the connector works is proven by the conformance suite on a real server.
let recorder: RespRecorder;
let seen: RecordedCommand[];
let indexSize: number | undefined;
let modules: Reply;
let queued = 0;
let aggregatePages: Reply[];
/** What FT.INFO answers for an index that does not exist (the wording differs across versions). */
let missingIndex: Reply;
/** Errors some commands answer with, by command name. */
let failing: Record<string, Reply>;
const dbs: RedisMemoryDb[] = [];

const searchModule = (ver: number): Reply => [['name', 'search', 'ver', ver, 'path', '/opt/redisearch.so', 'args', []]];

function answer(args: string[]): Reply | undefined {
  const [command = '', sub = ''] = args.map((a, i) => (i < 2 ? a.toUpperCase() : a));
  if (failing[command]) return failing[command];
  if (command === 'MULTI') return { simple: 'OK' };
  if (command === 'EXEC') {
    const replies = Array.from({ length: queued }, () => 1);
    queued = 0;
    return replies;
  }
  if (command === 'DEL' || command === 'HSET') {
    if (
      seen.some((c) => c.args[0] === 'MULTI') &&
      !seen.slice(seen.findLastIndex((c) => c.args[0] === 'MULTI')).some((c) => c.args[0] === 'EXEC')
    ) {
      queued++;
      return { simple: 'QUEUED' };
    }
    return 1;
  }
  if (command === 'MODULE' && sub === 'LIST') return modules;
  if (command === 'INFO') return '# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n';
  if (command === 'FT.INFO') {
    if (indexSize === undefined) return missingIndex;
    return [
      'index_name',
      args[1]!,
      'attributes',
      [
        ['identifier', 'tags', 'attribute', 'tags', 'type', 'TAG', 'SEPARATOR', ',', 'CASESENSITIVE'],
        [
          'identifier',
          'embedding',
          'attribute',
          'embedding',
          'type',
          'VECTOR',
          'algorithm',
          'HNSW',
          'data_type',
          'FLOAT32',
          'dim',
          indexSize,
          'distance_metric',
          'COSINE',
        ],
      ],
      'num_docs',
      '0',
    ];
  }
  if (command === 'FT._LIST') return ['km-notes', 'km-a-b', 'other', 'km-Not Normal', 'km-'];
  if (command === 'FT.SEARCH') {
    const blob = toFloat32Blob([0, 2, 0]);
    return [
      1,
      'km-i:d=a//p=1',
      ['id', 'd=a//p=1', 'tags', 'user:a,city:New%20York%2C%20NY', 'payload', '{"text":"x"}', 'embedding', blob, '__km_score', '0.25'],
    ];
  }
  if (command === 'FT.AGGREGATE' || command === 'FT.CURSOR') return aggregatePages.shift() ?? [[0], 0];
  if (command === 'HMGET') {
    const id = args[1]!.slice('km-i:'.length);
    return [id, `n:${id}`, '{}'];
  }
  return undefined;
}

beforeAll(async () => {
  recorder = await startRespRecorder(answer);
  seen = recorder.commands;
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  indexSize = undefined;
  modules = searchModule(80000);
  aggregatePages = [];
  missingIndex = { error: 'Unknown index name' };
  failing = {};
});
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close();
});

const open = (options: Partial<ConstructorParameters<typeof RedisMemoryDb>[0]> = {}) => {
  const db = new RedisMemoryDb({ url: recorder.url, ...options });
  dbs.push(db);
  return db;
};
const sent = (name: string) => seen.filter((c) => c.args[0]!.toUpperCase() === name);
const collect = async <T>(items: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('connect check', () => {
  it('refuses a server whose MODULE LIST has no search module, naming what is needed and what it has', async () => {
    modules = [];
    const error = await open()
      .getIndexes()
      .catch((e: unknown) => e);
    expect(isKmError(error, 'not_configured')).toBe(true);
    expect((error as Error).message).toContain('Redis 8, or Redis Stack / RediSearch 2.4+');
    expect((error as Error).message).toContain('this server has Redis 7.0.15 without the search module');
    expect(sent('FT._LIST')).toHaveLength(0);
  });

  it('refuses RediSearch older than 2.4 (no vector fields)', async () => {
    modules = searchModule(20206);
    const error = await open()
      .getIndexes()
      .catch((e: unknown) => e);
    expect(isKmError(error, 'not_configured')).toBe(true);
    expect((error as Error).message).toContain('this server has RediSearch 2.2.6, which has no vector fields');
  });

  it('accepts RediSearch 2.4 and Redis 8, and checks once per connection', async () => {
    for (const ver of [20400, 80200]) {
      modules = searchModule(ver);
      seen.length = 0;
      const db = open();
      expect(await db.getIndexes()).toEqual(['a-b', 'notes']);
      await db.getIndexes();
      expect(sent('MODULE')).toHaveLength(1);
    }
  });

  it('a server refusing MODULE LIST is accepted when it knows FT._LIST', async () => {
    modules = { error: "NOPERM User km has no permissions to run the 'module|list' command" };
    expect(await open().getIndexes()).toEqual(['a-b', 'notes']);
  });
});

describe('Redis commands', () => {
  it('createIndex: FT.INFO, then FT.CREATE with a case-sensitive TAG and an HNSW COSINE FLOAT32 vector, then the size key', async () => {
    // Redis 8.x's wording for a missing index (older servers say "Unknown index name").
    missingIndex = { error: 'SEARCH_INDEX_NOT_FOUND Index not found' };
    await open({ hnswM: 32, hnswEfConstruction: 400, hnswEfRuntime: 50 }).createIndex(' Notes ', 3);
    // Read by the memory DB and its driver (the size: none yet), then by the typed driver (the attributes of an existing index).
    expect(sent('FT.INFO').map((c) => c.args)).toEqual([
      ['FT.INFO', 'km-notes'],
      ['FT.INFO', 'km-notes'],
      ['FT.INFO', 'km-notes'],
    ]);
    expect(sent('FT.CREATE').map((c) => c.args)).toEqual([
      [
        'FT.CREATE',
        'km-notes',
        'ON',
        'HASH',
        'PREFIX',
        '1',
        'km-notes:',
        'SCHEMA',
        'tags',
        'TAG',
        'SEPARATOR',
        ',',
        'CASESENSITIVE',
        'embedding',
        'VECTOR',
        'HNSW',
        '12',
        'TYPE',
        'FLOAT32',
        'DIM',
        '3',
        'DISTANCE_METRIC',
        'COSINE',
        'M',
        '32',
        'EF_CONSTRUCTION',
        '400',
        'EF_RUNTIME',
        '50',
      ],
    ]);
    expect(sent('SET').map((c) => c.args)).toEqual([['SET', 'km-notes', '3']]);
  });

  it('createIndex with FLAT and another prefix', async () => {
    await open({ vectorAlgorithm: 'flat', indexPrefix: 'app:' }).createIndex('notes', 1536);
    expect(sent('FT.CREATE')[0]!.args.slice(1, 7)).toEqual(['app:notes', 'ON', 'HASH', 'PREFIX', '1', 'app:notes:']);
    expect(sent('FT.CREATE')[0]!.args.slice(13)).toEqual([
      'embedding',
      'VECTOR',
      'FLAT',
      '6',
      'TYPE',
      'FLOAT32',
      'DIM',
      '1536',
      'DISTANCE_METRIC',
      'COSINE',
    ]);
  });

  it('createIndex on an index of another size throws vector_size_mismatch and creates nothing', async () => {
    indexSize = 4;
    await expect(open().createIndex('notes', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    expect(sent('FT.CREATE')).toHaveLength(0);
  });

  it('upsertBatch: one pipelined MULTI per batch, DEL then HSET of each record with the vector as a FLOAT32 LE blob', async () => {
    indexSize = 2;
    const db = open({ batchSize: 2 });
    const ids = await db.upsertBatch(
      'i',
      ['a', 'b', 'c'].map((id) => ({ id, vector: [0.5, -2], tags: { user: ['x y', 'a,b'] }, payload: { text: id } })),
    );
    expect(ids).toEqual(['a', 'b', 'c']);
    const writes = seen.filter((c) => ['MULTI', 'DEL', 'HSET', 'EXEC'].includes(c.args[0]!));
    expect(writes.map((c) => c.args[0])).toEqual(['MULTI', 'DEL', 'HSET', 'DEL', 'HSET', 'EXEC', 'MULTI', 'DEL', 'HSET', 'EXEC']);
    // Each transaction arrives in one read: the client pipelined it.
    expect(new Set(writes.slice(0, 6).map((c) => c.read)).size).toBe(1);
    const hset = writes[2]!;
    expect(hset.args.slice(0, 8)).toEqual(['HSET', 'km-i:a', 'id', 'a', 'tags', 'user:x%20y,user:a%2Cb', 'payload', '{"text":"a"}']);
    expect(hset.args[8]).toBe('embedding');
    const blob = Buffer.alloc(8);
    blob.writeFloatLE(0.5, 0);
    blob.writeFloatLE(-2, 4);
    expect(hset.raw[9]!.equals(blob)).toBe(true);
  });

  it('getSimilarList: FT.SEARCH with the filter as KNN pre-filter, RETURN, SORTBY the distance, LIMIT 0 k, PARAMS k and the vector blob, DIALECT 2', async () => {
    indexSize = 3;
    const results = await collect(
      open().getSimilarList('i', [1, 0, 0], {
        filters: [MemoryFilters.byTag('user', 'a')],
        limit: 5,
        minRelevance: 0.5,
        withEmbeddings: true,
      }),
    );
    const search = sent('FT.SEARCH')[0]!;
    expect(search.args.slice(0, 19)).toEqual([
      'FT.SEARCH',
      'km-i',
      '(@tags:{user\\:a})=>[KNN $k @embedding $vec AS __km_score]',
      'RETURN',
      '5',
      'id',
      'tags',
      'payload',
      'embedding',
      '__km_score',
      'SORTBY',
      '__km_score',
      'ASC',
      'LIMIT',
      '0',
      '5',
      'PARAMS',
      '4',
      'k',
    ]);
    expect(search.args.slice(19, 21)).toEqual(['5', 'vec']);
    expect(search.raw[21]!.equals(Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0]))).toBe(true);
    expect(search.args.slice(22)).toEqual(['DIALECT', '2']);
    expect(results.map(([r, s]) => [r.id, r.tags, Array.from(r.vector), s])).toEqual([
      ['d=a//p=1', { user: ['a'], city: ['New York, NY'] }, [0, 2, 0], 0.75],
    ]);
  });

  it('getSimilarList without embeddings does not ask for the vector; minRelevance drops weaker results', async () => {
    indexSize = 3;
    const results = await collect(open().getSimilarList('i', [1, 0, 0], { minRelevance: 0.8 }));
    expect(sent('FT.SEARCH')[0]!.args.slice(2, 9)).toEqual([
      '*=>[KNN $k @embedding $vec AS __km_score]',
      'RETURN',
      '4',
      'id',
      'tags',
      'payload',
      '__km_score',
    ]);
    expect(results).toEqual([]);
  });

  it('getList: ids through FT.AGGREGATE WITHCURSOR and FT.CURSOR READ, then HMGET of the first ones in id order', async () => {
    indexSize = 3;
    aggregatePages = [
      [[4, ['id', 'c'], ['id', 'a']], 7],
      [[4, ['id', 'd'], ['id', 'b']], 0],
    ];
    const records = await collect(open().getList('i', { filters: [MemoryFilters.notTag('type', 'draft')], limit: 3 }));
    expect(sent('FT.AGGREGATE').map((c) => c.args)).toEqual([
      ['FT.AGGREGATE', 'km-i', '-@tags:{type\\:draft}', 'LOAD', '1', '@id', 'DIALECT', '2', 'WITHCURSOR', 'COUNT', '1000'],
    ]);
    expect(sent('FT.CURSOR').map((c) => c.args)).toEqual([['FT.CURSOR', 'READ', 'km-i', '7', 'COUNT', '1000']]);
    expect(sent('HMGET').map((c) => c.args)).toEqual(['a', 'b', 'c'].map((id) => ['HMGET', `km-i:${id}`, 'id', 'tags', 'payload']));
    expect(records.map((r) => [r.id, r.tags])).toEqual([
      ['a', { n: ['a'] }],
      ['b', { n: ['b'] }],
      ['c', { n: ['c'] }],
    ]);
  });

  it('delete is DEL of the record key; deleteIndex is FT.DROPINDEX DD and DEL of the size key', async () => {
    indexSize = 3;
    const db = open();
    await db.delete('i', { id: 'd=x//p=1' });
    await db.deleteIndex('i');
    expect(sent('DEL').map((c) => c.args)).toEqual([
      ['DEL', 'km-i:d=x//p=1'],
      ['DEL', 'km-i'],
    ]);
    expect(sent('FT.DROPINDEX').map((c) => c.args)).toEqual([['FT.DROPINDEX', 'km-i', 'DD']]);
  });

  it('delete asks FT.INFO once per index (the size, kept), then each delete is its DEL alone, as km 0.x sent', async () => {
    indexSize = 3;
    const db = open();
    await db.delete('i', { id: 'a' });
    await db.delete('i', { id: 'b' });
    expect(sent('FT.INFO')).toHaveLength(1);
    expect(sent('DEL').map((c) => c.args)).toEqual([
      ['DEL', 'km-i:a'],
      ['DEL', 'km-i:b'],
    ]);
  });

  it('deleteIndex: a failed FT.DROPINDEX is the error thrown, even when the DEL of the size key fails too', async () => {
    failing = {
      'FT.DROPINDEX': { error: "NOPERM User km has no permissions to run the 'ft.dropindex' command" },
      DEL: { error: "READONLY You can't write against a read only replica." },
    };
    const error = await open()
      .deleteIndex('i')
      .catch((e: unknown) => e);
    expect(isKmError(error, 'unauthorized')).toBe(true);
    expect(sent('DEL').map((c) => c.args)).toEqual([['DEL', 'km-i']]);
  });

  it('a missing index: search and list yield nothing, upsert throws index_not_found, nothing is written', async () => {
    const db = open();
    expect(await collect(db.getSimilarList('gone', [1, 0]))).toEqual([]);
    expect(await collect(db.getList('gone'))).toEqual([]);
    await expect(db.upsert('gone', { id: 'a', vector: [1, 0], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'index_not_found'),
    );
    expect(sent('HSET')).toHaveLength(0);
  });
});
