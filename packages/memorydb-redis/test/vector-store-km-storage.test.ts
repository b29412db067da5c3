import { defineRecord, isKmError, type RecordDefinition } from '@km/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisVectorStoreDriver, type RedisStorageOptions } from '../src/vector-store/redis-vector-store-driver.js';
import { type FakeQueryEngine, startFakeQueryEngine } from './fixtures/fake-query-engine.js';

// The typed driver's storage options for KM's layout (what RedisMemoryDb sets) and
// vectorDimensions, on the fake Query Engine of the compatibility fixture.
const Km = defineRecord({
  key: { name: 'id' },
  data: {
    tags: { type: 'string[]', filterable: true },
    payload: { type: 'string' },
  },
  vectors: { embedding: { dimensions: 3, distance: 'cosine' } },
}) as RecordDefinition;
const KM_STORAGE: RedisStorageOptions = {
  plainKey: true,
  plainText: ['payload'],
  vectorSizeKey: true,
  listEveryIndex: true,
  uncheckedDeletes: true,
};

const running: Array<{ driver: RedisVectorStoreDriver; fake: FakeQueryEngine }> = [];
afterEach(async () => {
  for (const { driver, fake } of running.splice(0)) {
    await driver.close();
    await fake.close();
  }
});

async function start(storage: RedisStorageOptions, reportDim = true, prefix = 'km-') {
  const fake = await startFakeQueryEngine({ reportDim });
  const driver = new RedisVectorStoreDriver({ url: fake.url, collectionPrefix: prefix }, storage);
  running.push({ driver, fake });
  const sent = (name: string) => fake.commands.filter((c) => c.args[0]!.toUpperCase() === name).map((c) => c.args);
  return { fake, driver, sent };
}

const row = (id: string, payload: string, tags: string[], vector: number[]) => ({ id, payload, tags, embedding: new Float32Array(vector) });

describe('vectorDimensions', () => {
  it("reads the vector's DIM from FT.INFO; undefined for a missing index", async () => {
    const { driver } = await start({});
    await driver.createCollection('notes', Km);
    expect(await driver.vectorDimensions('notes', 'embedding')).toBe(3);
    expect(await driver.vectorDimensions('missing', 'embedding')).toBeUndefined();
  });

  it('an index without that vector field is invalid_argument (not a km index)', async () => {
    const { driver } = await start({});
    await driver.createCollection('notes', Km);
    const error = await driver.vectorDimensions('notes', 'other').catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain('no "other" vector field');
  });

  it('on a server whose FT.INFO has no dim, reads the size key (vectorSizeKey), else is transient', async () => {
    const withKey = await start({ vectorSizeKey: true }, false);
    await withKey.driver.createCollection('notes', Km);
    expect(withKey.sent('SET')).toEqual([['SET', 'km-notes', '3']]);
    expect(await withKey.driver.vectorDimensions('notes', 'embedding')).toBe(3);
    expect(withKey.sent('GET')).toEqual([['GET', 'km-notes']]);
    const without = await start({}, false);
    await without.driver.createCollection('notes', Km);
    expect(without.sent('SET')).toEqual([]);
    const error = await without.driver.vectorDimensions('notes', 'embedding').catch((e: unknown) => e);
    expect(isKmError(error, 'transient')).toBe(true);
  });
});

describe("KM's storage options", () => {
  it('plainKey and plainText: FT.CREATE indexes neither; the key and the text are stored as they are', async () => {
    const { driver, fake, sent } = await start(KM_STORAGE);
    await driver.createCollection('notes', Km);
    expect(sent('FT.CREATE')[0]).toEqual([
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
      '6',
      'TYPE',
      'FLOAT32',
      'DIM',
      '3',
      'DISTANCE_METRIC',
      'COSINE',
    ]);
    const payload = '{"text":"50%20 off, a b"}';
    await driver.upsert('notes', Km, [row('doc 1,%20x', payload, ['user:a b', 'k'], [1, 0, 0])]);
    const hash = fake.hashes.get('km-notes:doc 1,%20x')!;
    expect(Object.fromEntries([...hash].filter(([f]) => f !== 'embedding').map(([f, v]) => [f, v.toString()]))).toEqual({
      id: 'doc 1,%20x',
      tags: 'user:a%20b,k',
      payload,
    });
    // Read back exactly, by key, by filter and by similarity.
    const expected = { id: 'doc 1,%20x', payload, tags: ['user:a b', 'k'] };
    expect(await driver.get('notes', Km, ['doc 1,%20x'], false)).toEqual([expected]);
    const filter = { op: 'contains', property: Km.data[0]!, value: 'user:a b' } as never;
    const listed = await driver.query('notes', Km, {
      filter,
      orderBy: [{ storageName: 'id', descending: false }],
      limit: 10,
      includeVectors: false,
    });
    expect(listed).toEqual([expected]);
    const [found] = await driver.search('notes', Km, {
      vectorProperty: Km.vectors[0]!,
      vector: new Float32Array([1, 0, 0]),
      limit: 5,
      filter,
      includeVectors: true,
    });
    expect(found![0]).toEqual({ ...expected, embedding: new Float32Array([1, 0, 0]) });
    expect(found![1]).toBeCloseTo(1, 6);
  });

  it('without them, the key and strings are TAG-encoded and the key is indexed (typed collections as before)', async () => {
    const { driver, fake, sent } = await start({});
    await driver.createCollection('notes', Km);
    expect(sent('FT.CREATE')[0]!.slice(8, 14)).toEqual(['id', 'TAG', 'SEPARATOR', ',', 'CASESENSITIVE', 'tags']);
    await driver.upsert('notes', Km, [row('a b', 'x y', [], [1, 0, 0])]);
    const hash = fake.hashes.get('km-notes:a b')!;
    expect([hash.get('id')!.toString(), hash.get('payload')!.toString()]).toEqual(['a%20b', 'x%20y']);
  });

  it('vectorSizeKey: the size key is deleted with the index, even a missing one', async () => {
    const { driver, sent } = await start(KM_STORAGE);
    await driver.createCollection('notes', Km);
    await driver.deleteCollection('notes');
    await driver.deleteCollection('missing');
    expect(sent('DEL')).toEqual([
      ['DEL', 'km-notes'],
      ['DEL', 'km-missing'],
    ]);
  });

  it('uncheckedDeletes: delete is the DEL alone, no FT.INFO first; in a missing collection it is a no-op that creates nothing', async () => {
    const { driver, fake, sent } = await start(KM_STORAGE);
    await driver.createCollection('notes', Km);
    await driver.upsert('notes', Km, [row('a', '{}', [], [1, 0, 0])]);
    fake.commands.length = 0;
    await driver.delete('notes', Km, ['a']);
    await driver.delete('missing', Km, ['b']);
    expect(fake.commands.map((c) => c.args)).toEqual([
      ['DEL', 'km-notes:a'],
      ['DEL', 'km-missing:b'],
    ]);
    expect(fake.hashes.has('km-notes:a')).toBe(false);
    expect(await driver.collectionExists('missing')).toBe(false);
    expect(sent('FT.CREATE')).toHaveLength(0);
  });

  it('without uncheckedDeletes (typed collections), delete asks FT.INFO first: a missing collection is collection_not_found', async () => {
    const { driver, sent } = await start({});
    const error = await driver.delete('missing', Km, ['b']).catch((e: unknown) => e);
    expect(isKmError(error, 'collection_not_found')).toBe(true);
    expect(sent('FT.INFO')).toEqual([['FT.INFO', 'km-missing']]);
    expect(sent('DEL')).toHaveLength(0);
  });

  it('listEveryIndex: every search index under the prefix, whatever its name', async () => {
    const { driver, fake } = await start(KM_STORAGE, true, 'app:');
    fake.indexes.set('app:notes', ['FT.CREATE', 'app:notes', 'ON', 'HASH', 'PREFIX', '1', 'app:notes:', 'SCHEMA']);
    fake.indexes.set('app:-odd.name', ['FT.CREATE', 'app:-odd.name', 'ON', 'HASH', 'PREFIX', '1', 'app:-odd.name:', 'SCHEMA']);
    fake.indexes.set('other', ['FT.CREATE', 'other', 'ON', 'HASH', 'PREFIX', '1', 'other:', 'SCHEMA']);
    expect((await driver.listCollections()).sort()).toEqual(['-odd.name', 'notes']);
    const typed = await start({}, true, 'app:');
    for (const [k, v] of fake.indexes) typed.fake.indexes.set(k, v);
    expect(await typed.driver.listCollections()).toEqual(['notes']);
  });
});
