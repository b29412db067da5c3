import { isKmError, silentLogger } from '@km/core';
import { checkVectorRecord, KmRecordLayout } from '@km/core/connector';
import { ErrorReply, MultiErrorReply, ReconnectStrategyError } from 'redis';
import { describe, expect, it } from 'vitest';
import {
  createCollectionCommand,
  decodeIndexedTag,
  encodeIndexedTag,
  fromFloat32Blob,
  fromVectorHash,
  moduleVersionText,
  RedisMemoryDb,
  redisMemoryDbFactory,
  resolveRedisOptions,
  scoreFromRedisDistance,
  searchModuleOf,
  toFloat32Blob,
  toVectorHash,
  translateRedisError,
} from '../src/index.js';

// KM's records as RedisMemoryDb lays them out: core's layout (no `content`) and the typed
// driver's storage options for km's hashes (the id and the payload as they are).
const layout = new KmRecordLayout({ storageNames: { content: false } });
const plain = { plainKey: true, plainText: new Set(['payload']) };
const toHash = (record: Parameters<KmRecordLayout['toStorage']>[0]) =>
  toVectorHash(layout.definition(record.vector.length), layout.toStorage(record), plain);

describe('tag encoding', () => {
  const tags = ['user:alice', 'k:a,b', 'k: padded ', 'k:100%', 'k:%2C', 'k:tab\tnl\n', 'k:{x}|"y"', 'k:Ünïcødé 🚀', 'k:', 'flag'];

  it('encodes %, the separator, whitespace and control characters as %XX, nothing else', () => {
    expect(encodeIndexedTag('city:New York, NY')).toBe('city:New%20York%2C%20NY');
    expect(encodeIndexedTag('k:100%')).toBe('k:100%25');
    expect(encodeIndexedTag('k:{x}|"y"\'é')).toBe('k:{x}|"y"\'é');
    expect(encodeIndexedTag('k:\u0001\u007f')).toBe('k:%01%7F');
  });

  it('round-trips every tag; no encoded tag holds the separator or whitespace', () => {
    for (const tag of tags) {
      const encoded = encodeIndexedTag(tag);
      expect(decodeIndexedTag(encoded), tag).toBe(tag);
      expect(encoded).not.toMatch(/[,\s]/);
    }
  });

  it('a collection becomes one field value and comes back exactly', () => {
    const collection = { user: ['alice', 'a,b', ' x '], flag: [null], k: ['', '%2C'] };
    const record = checkVectorRecord({ id: 'r', vector: [1], tags: collection, payload: {} }, 'redis');
    const value = toHash(record).tags;
    expect(value).toBe('user:alice,user:a%2Cb,user:%20x%20,flag,k:,k:%252C');
    const back = (tags: string | undefined) =>
      layout.fromStorage(fromVectorHash(layout.definition(1), 'r', { tags, payload: '{}' }, false, plain)).tags;
    expect(back(value as string)).toEqual(collection);
    expect(back('')).toEqual({});
    expect(back(undefined)).toEqual({});
  });
});

describe('relevance', () => {
  it('is 1 - the COSINE distance', () => {
    const relevance = (distance: number) => scoreFromRedisDistance('cosine', distance);
    expect(relevance(0)).toBe(1);
    expect(relevance(1)).toBe(0);
    expect(relevance(2)).toBe(-1);
    expect(relevance(0.25)).toBe(0.75);
    for (const cos of [-1, -0.3, 0, 0.42, 1]) expect(relevance(1 - cos)).toBeCloseTo(cos, 12);
  });
});

describe('vectors and records', () => {
  it('vectors are FLOAT32 little-endian blobs', () => {
    expect([...toFloat32Blob([1, -2])]).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
    expect(Array.from(fromFloat32Blob(toFloat32Blob([0.5, -0.25, 3])))).toEqual([0.5, -0.25, 3]);
  });

  it('a record becomes a hash and comes back exactly, the vector only when asked', () => {
    const record = checkVectorRecord(
      { id: 'd=a//p=1', vector: [0.5, 2], tags: { u: ['a b', 'c'], f: [null] }, payload: { text: 'hi', n: 1 } },
      'redis',
    );
    const hash = toHash(record);
    expect(hash).toEqual({ id: 'd=a//p=1', tags: 'u:a%20b,u:c,f', payload: '{"text":"hi","n":1}', embedding: toFloat32Blob([0.5, 2]) });
    const fields = Object.fromEntries(Object.entries(hash).map(([k, v]) => [k, Buffer.isBuffer(v) ? v : Buffer.from(v)]));
    const read = (withVector: boolean) => layout.fromStorage(fromVectorHash(layout.definition(2), 'd=a//p=1', fields, withVector, plain));
    const back = read(true);
    expect([back.id, back.tags, back.payload, Array.from(back.vector)]).toEqual([
      'd=a//p=1',
      { u: ['a b', 'c'], f: [null] },
      { text: 'hi', n: 1 },
      [0.5, 2],
    ]);
    expect(read(false).vector).toHaveLength(0);
  });
});

describe('FT.CREATE', () => {
  const createIndexCommand = (name: string, prefix: string, size: number, options: Parameters<typeof createCollectionCommand>[3]) =>
    createCollectionCommand(name, prefix, layout.definition(size), options, plain);

  it('HNSW with its options, or FLAT (which takes none)', () => {
    const hnsw = { vectorAlgorithm: 'hnsw' as const, hnsw: { m: 24, efConstruction: 300, efRuntime: 20 } };
    expect(createIndexCommand('km-x', 'km-x:', 384, hnsw)).toEqual(
      ['FT.CREATE', 'km-x', 'ON', 'HASH', 'PREFIX', '1', 'km-x:', 'SCHEMA', 'tags', 'TAG', 'SEPARATOR', ',', 'CASESENSITIVE'].concat(
        ['embedding', 'VECTOR', 'HNSW', '12', 'TYPE', 'FLOAT32', 'DIM', '384', 'DISTANCE_METRIC', 'COSINE'],
        ['M', '24', 'EF_CONSTRUCTION', '300', 'EF_RUNTIME', '20'],
      ),
    );
    expect(createIndexCommand('km-x', 'km-x:', 3, { vectorAlgorithm: 'hnsw', hnsw: {} }).slice(13)).toEqual([
      'embedding',
      'VECTOR',
      'HNSW',
      '6',
      'TYPE',
      'FLOAT32',
      'DIM',
      '3',
      'DISTANCE_METRIC',
      'COSINE',
    ]);
    expect(createIndexCommand('km-x', 'km-x:', 3, { ...hnsw, vectorAlgorithm: 'flat' }).slice(13)).toEqual([
      'embedding',
      'VECTOR',
      'FLAT',
      '6',
      'TYPE',
      'FLOAT32',
      'DIM',
      '3',
      'DISTANCE_METRIC',
      'COSINE',
    ]);
  });
});

describe('options', () => {
  it('defaults, and refusals of bad ones', () => {
    expect(resolveRedisOptions({ url: 'redis://x' })).toEqual({ indexPrefix: 'km-', batchSize: 256, vectorAlgorithm: 'hnsw', hnsw: {} });
    const refused = (options: Parameters<typeof resolveRedisOptions>[0]) => {
      try {
        resolveRedisOptions(options);
        return undefined;
      } catch (error) {
        return isKmError(error, 'invalid_argument') ? (error as Error).message : error;
      }
    };
    expect(refused({})).toContain('client or a url');
    expect(refused({ url: 'redis://x', indexPrefix: 'a b' })).toContain('indexPrefix');
    expect(refused({ url: 'redis://x', vectorAlgorithm: 'ivf' as never })).toContain('vectorAlgorithm must be hnsw or flat, got "ivf"');
    expect(refused({ url: 'redis://x', hnswM: 0 })).toContain('hnswM');
  });
});

describe('MODULE LIST', () => {
  it('finds the search module in RESP2 and RESP3 shapes; versions read as major.minor.patch', () => {
    expect(
      searchModuleOf([
        ['name', 'ReJSON', 'ver', 20000],
        ['name', 'search', 'ver', 20405],
      ]),
    ).toEqual({ name: 'search', version: 20405 });
    expect(searchModuleOf([{ name: 'searchlight', ver: 80000 }])).toEqual({ name: 'searchlight', version: 80000 });
    expect(searchModuleOf([])).toBeUndefined();
    expect(moduleVersionText(20405)).toBe('2.4.5');
    expect(moduleVersionText(80201)).toBe('8.2.1');
  });
});

describe('translateRedisError', () => {
  it('maps server replies and connection trouble to typed km errors', () => {
    expect(isKmError(translateRedisError(new ErrorReply('Unknown Index name'), 'x'), 'index_not_found')).toBe(true);
    expect(isKmError(translateRedisError(new ErrorReply('km-x: no such index'), 'x'), 'index_not_found')).toBe(true);
    expect(isKmError(translateRedisError(new ErrorReply('No such index km-x'), 'x'), 'index_not_found')).toBe(true);
    // Redis 8.x (RediSearch's error codes): FT.INFO, FT.SEARCH and FT.AGGREGATE on a missing index.
    expect(isKmError(translateRedisError(new ErrorReply('SEARCH_INDEX_NOT_FOUND Index not found'), 'x'), 'index_not_found')).toBe(true);
    expect(isKmError(translateRedisError(new ErrorReply('SEARCH_INDEX_NOT_FOUND: km-x'), 'x'), 'index_not_found')).toBe(true);
    expect(isKmError(translateRedisError(new ErrorReply('Index not found: km-x'), 'x'), 'index_not_found')).toBe(true);
    expect(isKmError(translateRedisError(new ErrorReply('NOAUTH Authentication required.'), 'x'), 'unauthorized')).toBe(true);
    expect(isKmError(translateRedisError(new ErrorReply('WRONGPASS invalid username-password pair'), 'x'), 'unauthorized')).toBe(true);
    const loading = translateRedisError(new ErrorReply('LOADING Redis is loading the dataset in memory'), 'x');
    expect(isKmError(loading, 'transient') && loading.transient).toBe(true);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    expect(isKmError(translateRedisError(refused, 'x'), 'transient')).toBe(true);
    const gaveUp = new ReconnectStrategyError(new Error('cannot reach Redis after 4 attempts'), refused);
    expect(isKmError(translateRedisError(gaveUp, 'x'), 'transient')).toBe(true);
    const authGaveUp = new ReconnectStrategyError(new Error('WRONGPASS'), new ErrorReply('WRONGPASS invalid'));
    expect(isKmError(translateRedisError(authGaveUp, 'x'), 'unauthorized')).toBe(true);
    const bad = translateRedisError(new ErrorReply('Syntax error at offset 3 near x'), 'x');
    expect(isKmError(bad, 'upstream_error') && !bad.transient).toBe(true);
  });

  it('a failed MULTI is translated from its first failed command', () => {
    const multi = new MultiErrorReply([1 as unknown as ErrorReply, new ErrorReply('NOPERM no permissions')], [1]);
    expect(isKmError(translateRedisError(multi, 'x'), 'unauthorized')).toBe(true);
  });
});

describe('redisMemoryDbFactory', () => {
  it('declares its settings: the URL (redis: or rediss:, required), the vector algorithm and the prefix', () => {
    expect(redisMemoryDbFactory.type).toBe('redis');
    const byKey = Object.fromEntries(redisMemoryDbFactory.settings.map((s) => [s.key, s]));
    expect(byKey.redisUrl).toMatchObject({
      env: ['KM_REDIS_URL'],
      type: 'url',
      schemes: ['redis:', 'rediss:'],
      required: true,
      flag: '--redis-url',
    });
    expect(byKey.redisVectorAlgorithm?.env).toEqual(['KM_REDIS_VECTOR_ALGORITHM']);
    expect(byKey.prefix?.env).toEqual(['KM_MEMORY_DB_PREFIX']);
  });

  it('builds a RedisMemoryDb with the prefix and algorithm; refuses another algorithm naming the setting', async () => {
    const db = await redisMemoryDbFactory.create(
      { redisUrl: 'redis://127.0.0.1:1', redisVectorAlgorithm: 'FLAT', prefix: 'kmsvc-' },
      { logger: silentLogger },
    );
    expect(db.name).toBe('redis');
    expect(db).toBeInstanceOf(RedisMemoryDb);
    expect((db as RedisMemoryDb).indexName('x')).toBe('kmsvc-x');
    await (db as RedisMemoryDb).close();
    const error = await redisMemoryDbFactory
      .create({ redisUrl: 'redis://127.0.0.1:1', redisVectorAlgorithm: 'ivf' }, { logger: silentLogger })
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain('KM_REDIS_VECTOR_ALGORITHM');
  });
});
