import { isKmError } from '@km/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toFloat32Blob } from '../src/vector-blob.js';
import { RedisVectorStoreDriver } from '../src/vector-store/redis-vector-store-driver.js';
import { type RecordedCommand, type Reply, type RespRecorder, startRespRecorder } from './resp-recorder.js';
import { Counter, Hotel, property } from './vector-store-fixtures.js';

// A RESP2 recorder answering like Redis with the Query Engine (reply shapes from the FT.*
// command reference), to check the commands the vector-store driver sends. Shapes only: whether
// the connector works is proven by describeVectorStore on a real server
// (tests-integration/test/vector-store-redis.test.ts).
let recorder: RespRecorder;
let seen: RecordedCommand[];
/** Attributes FT.INFO reports per index; an index not listed is missing. */
let indexes: Map<string, string[]>;
let searchReply: Reply;
let hmget: (key: string) => Reply;
let aggregateReply: Reply;
/** An index another client creates just before this FT.CREATE arrives. */
let winner: [string, string[]] | undefined;
const drivers: RedisVectorStoreDriver[] = [];

function answer(args: string[]): Reply | undefined {
  const command = args[0]!.toUpperCase();
  if (command === 'MODULE') return [['name', 'search', 'ver', 80200]];
  if (command === 'FT.INFO') {
    const attributes = indexes.get(args[1]!);
    if (!attributes) return { error: 'Unknown index name' };
    return ['index_name', args[1]!, 'attributes', attributes.map((a) => ['identifier', a, 'attribute', a, 'type', 'TAG'])];
  }
  if (command === 'FT.CREATE') {
    if (!winner) return undefined;
    indexes.set(...winner);
    return { error: 'Index already exists' };
  }
  if (command === 'FT.DROPINDEX') return indexes.delete(args[1]!) ? { simple: 'OK' } : { error: 'Unknown index name' };
  if (command === 'FT._LIST') return ['kmvs-hotels', 'km-notes', 'kmvs-bad name', 'kmvs-a_1'];
  if (command === 'FT.SEARCH') return indexes.has(args[1]!) ? searchReply : { error: 'kmvs-x: no such index' };
  if (command === 'MULTI') return { simple: 'OK' };
  if (command === 'DEL' || command === 'HSET') {
    return seen.some((c) => c.args[0] === 'MULTI') && !seen.some((c) => c.args[0] === 'EXEC') ? { simple: 'QUEUED' } : 1;
  }
  if (command === 'EXEC') return seen.filter((c) => ['DEL', 'HSET'].includes(c.args[0]!)).map(() => 1);
  if (command === 'HMGET') return hmget(args[1]!);
  if (command === 'FT.AGGREGATE') return indexes.has(args[1]!) ? aggregateReply : { error: 'Unknown index name' };
  return undefined;
}

beforeAll(async () => {
  recorder = await startRespRecorder(answer);
  seen = recorder.commands;
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  indexes = new Map([['kmvs-hotels', ['hotelId', '__km1', 'rating', 'embedding']]]);
  searchReply = [0];
  hmget = () => [];
  aggregateReply = [[0], 0];
  winner = undefined;
});
afterEach(async () => {
  for (const driver of drivers.splice(0)) await driver.close();
});

const open = (options: { collectionPrefix?: string } = {}) => {
  const driver = new RedisVectorStoreDriver({ url: recorder.url, ...options });
  drivers.push(driver);
  return driver;
};
const sent = (name: string) => seen.filter((c) => c.args[0]!.toUpperCase() === name).map((c) => c.args);
const rawOf = (name: string) => seen.filter((c) => c.args[0]!.toUpperCase() === name).map((c) => c.raw);
const hotel = {
  hotelId: 'h 1',
  'hotel name': 'Sea View',
  rating: 4.5,
  rooms: null,
  pets: true,
  opened: null,
  tags: ['pool'],
  floors: null,
  description: 'quiet',
  embedding: new Float32Array([1, 0, 0]),
  dotVector: null,
  l2Vector: null,
};

describe('collections', () => {
  it('listCollections lists the search indexes under the prefix whose rest is a collection name', async () => {
    expect(await open().listCollections()).toEqual(['a_1', 'hotels']);
  });

  it('createCollection sends FT.INFO, then FT.CREATE on the collection prefix', async () => {
    indexes.clear();
    await open().createCollection('hotels', Hotel);
    expect(sent('FT.INFO')).toEqual([['FT.INFO', 'kmvs-hotels']]);
    expect(sent('FT.CREATE')[0]!.slice(0, 8)).toEqual(['FT.CREATE', 'kmvs-hotels', 'ON', 'HASH', 'PREFIX', '1', 'kmvs-hotels:', 'SCHEMA']);
  });

  it('createCollection on an existing index checks its attributes and names the first one missing', async () => {
    await open().createCollection('hotels', { ...Hotel, vectors: Hotel.vectors.slice(0, 1), data: Hotel.data.slice(0, 1) });
    expect(sent('FT.CREATE')).toHaveLength(0);
    const error = await open()
      .createCollection('hotels', Hotel)
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain('no attribute "rooms" for property "rooms"');
  });

  it('a concurrent creator (Index already exists) is no error when its index fits; FT.INFO is read again', async () => {
    indexes.clear();
    winner = ['kmvs-c', ['counter_id', 'label', 'v']];
    await open().createCollection('c', Counter);
    expect(sent('FT.CREATE')).toHaveLength(1);
    expect(sent('FT.INFO')).toEqual([
      ['FT.INFO', 'kmvs-c'],
      ['FT.INFO', 'kmvs-c'],
    ]);
  });

  it('deleteCollection drops the index with its hashes (DD); a missing one is no error', async () => {
    await open().deleteCollection('hotels');
    await open().deleteCollection('gone');
    expect(sent('FT.DROPINDEX')).toEqual([
      ['FT.DROPINDEX', 'kmvs-hotels', 'DD'],
      ['FT.DROPINDEX', 'kmvs-gone', 'DD'],
    ]);
  });
});

describe('records', () => {
  it('upsert checks the index exists, then one MULTI of DEL + HSET per record, fields by storage name, the vector as a FLOAT32 blob', async () => {
    await open().upsert('hotels', Hotel, [hotel]);
    expect(sent('MULTI')).toHaveLength(1);
    expect(sent('DEL')).toEqual([['DEL', 'kmvs-hotels:h 1']]);
    const hset = sent('HSET')[0]!;
    expect(hset.slice(0, 2)).toEqual(['HSET', 'kmvs-hotels:h 1']);
    const fields = Object.fromEntries(hset.slice(2).flatMap((v, i, all) => (i % 2 === 0 ? [[v, all[i + 1]]] : [])));
    expect(fields).toMatchObject({
      hotelId: 'h%201',
      'hotel name': 'Sea%20View',
      rating: '4.5',
      pets: 'true',
      tags: 'pool',
      description: 'quiet',
    });
    expect(Object.keys(fields)).not.toContain('rooms');
    const raw = rawOf('HSET')[0]!;
    expect(raw[hset.indexOf('embedding') + 1]).toEqual(toFloat32Blob([1, 0, 0]));
  });

  it('upsert and delete on a missing collection throw collection_not_found and write nothing', async () => {
    for (const write of [
      (d: RedisVectorStoreDriver) => d.upsert('gone', Hotel, [hotel]),
      (d: RedisVectorStoreDriver) => d.delete('gone', Hotel, ['h']),
    ]) {
      const error = await write(open()).catch((e: unknown) => e);
      expect(isKmError(error, 'collection_not_found')).toBe(true);
    }
    expect(sent('MULTI')).toHaveLength(0);
    expect(sent('DEL')).toHaveLength(0);
  });

  it('get pipelines one HMGET per key (vectors only when asked) and leaves out keys with no hash', async () => {
    hmget = (key) => (key.endsWith(':7') ? ['7', 'seven', toFloat32Blob([3, 4])] : [null, null, null]);
    const records = await open().get('c', Counter, [7, 8], true);
    expect(sent('HMGET')).toEqual([
      ['HMGET', 'kmvs-c:7', 'counter_id', 'label', 'v'],
      ['HMGET', 'kmvs-c:8', 'counter_id', 'label', 'v'],
    ]);
    expect(records).toEqual([{ counter_id: 7, label: 'seven', v: new Float32Array([3, 4]) }]);
  });

  it('delete sends one DEL of the hashes', async () => {
    await open().delete('hotels', Hotel, ['a', 'b']);
    expect(sent('DEL')).toEqual([['DEL', 'kmvs-hotels:a', 'kmvs-hotels:b']]);
  });
});

describe('search', () => {
  const query = (overrides: Record<string, unknown> = {}) => ({
    vectorProperty: Hotel.vectors[0]!,
    vector: new Float32Array([1, 0, 0]),
    limit: 5,
    filter: undefined,
    includeVectors: false,
    ...overrides,
  });

  it('sends a KNN query with the filter as pre-filter, k and the vector as PARAMS, sorted by distance; COSINE distance → similarity', async () => {
    searchReply = [1, 'kmvs-hotels:h 1', ['hotelId', 'h%201', 'hotel name', 'Sea%20View', 'rating', '4.5', '__km_score', '0.25']];
    const results = await open().search('hotels', Hotel, query({ filter: { op: 'gte', property: property(Hotel, 'rating'), value: 4 } }));
    const args = sent('FT.SEARCH')[0]!;
    expect(args.slice(0, 3)).toEqual(['FT.SEARCH', 'kmvs-hotels', '(@rating:[4 +inf])=>[KNN $k @embedding $vec AS __km_score]']);
    const tail = args.slice(3).join(' ');
    expect(tail).toContain('RETURN 10 hotelId hotel name rating rooms pets opened tags floors description __km_score');
    expect(tail).toContain('SORTBY __km_score ASC');
    expect(tail).toContain('LIMIT 0 5');
    expect(tail).toContain('PARAMS 4 k 5 vec');
    expect(tail).toContain('DIALECT 2');
    const raw = rawOf('FT.SEARCH')[0]!;
    expect(raw[args.indexOf('vec') + 1]).toEqual(toFloat32Blob([1, 0, 0]));
    expect(results).toHaveLength(1);
    expect(results[0]![0]).toMatchObject({ hotelId: 'h 1', 'hotel name': 'Sea View', rating: 4.5, pets: null });
    expect(results[0]![1]).toBeCloseTo(0.75, 6);
  });

  it('L2 reports squared distances: the score is the distance; IP reports 1 - dot', async () => {
    searchReply = [1, 'kmvs-hotels:a', ['hotelId', 'a', '__km_score', '9']];
    const [[, l2]] = (await open().search('hotels', Hotel, query({ vectorProperty: Hotel.vectors[2]! }))) as [[unknown, number]];
    expect(l2).toBe(3);
    searchReply = [1, 'kmvs-hotels:a', ['hotelId', 'a', '__km_score', '-2']];
    const [[, dot]] = (await open().search('hotels', Hotel, query({ vectorProperty: Hotel.vectors[1]! }))) as [[unknown, number]];
    expect(dot).toBe(3);
    expect(sent('FT.SEARCH')[0]![2]).toBe('*=>[KNN $k @l2Vector $vec AS __km_score]');
  });

  it('a filter that matches nothing sends no search; a missing index returns nothing', async () => {
    expect(await open().search('hotels', Hotel, query({ filter: { op: 'or', nodes: [] } }))).toEqual([]);
    expect(sent('FT.SEARCH')).toHaveLength(0);
    expect(await open().search('gone', Hotel, query())).toEqual([]);
  });
});

describe('query', () => {
  it('reads matching keys through an aggregation cursor, sorts by the order fields here (missing last, ties by key), then reads the first records', async () => {
    indexes.set('kmvs-c', ['counter_id', 'label', 'v']);
    aggregateReply = [[3, ['counter_id', '9'], ['counter_id', '7'], ['counter_id', '3']], 0];
    const labels: Record<string, string | null> = { '9': null, '7': 'b', '3': 'b' };
    hmget = (key) => {
      const id = key.slice('kmvs-c:'.length);
      return [id, labels[id] ?? null];
    };
    const records = await open().query('c', Counter, {
      filter: { op: 'ne', property: property(Counter, 'label'), value: 'z' },
      orderBy: [{ storageName: 'label', descending: true }],
      limit: 2,
      includeVectors: false,
    });
    expect(sent('FT.AGGREGATE')).toEqual([
      ['FT.AGGREGATE', 'kmvs-c', '-@label:{z}', 'LOAD', '1', '@counter_id', 'DIALECT', '2', 'WITHCURSOR', 'COUNT', '1000'],
    ]);
    // The order fields of every match first, then the records wanted.
    expect(sent('HMGET').map((a) => a.slice(1))).toEqual([
      ['kmvs-c:9', 'counter_id', 'label'],
      ['kmvs-c:7', 'counter_id', 'label'],
      ['kmvs-c:3', 'counter_id', 'label'],
      ['kmvs-c:3', 'counter_id', 'label'],
      ['kmvs-c:7', 'counter_id', 'label'],
    ]);
    expect(records).toEqual([
      { counter_id: 3, label: 'b' },
      { counter_id: 7, label: 'b' },
    ]);
  });

  it('a filter that matches nothing sends nothing; a missing index reads nothing', async () => {
    const q = {
      filter: { op: 'in', property: property(Counter, 'label'), values: [] },
      orderBy: [],
      limit: 5,
      includeVectors: false,
    } as const;
    expect(await open().query('c', Counter, q as never)).toEqual([]);
    expect(sent('FT.AGGREGATE')).toHaveLength(0);
    expect(await open().query('gone', Counter, { ...q, filter: undefined } as never)).toEqual([]);
  });
});
