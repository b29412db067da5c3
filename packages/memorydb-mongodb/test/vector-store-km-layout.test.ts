import { isKmError } from '@km/core';
import { KmRecordLayout } from '@km/core/connector';
import { type Document, Double } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MongoDbStorageLayout } from '../src/vector-store/mongodb-storage-layout.js';
import { checkVectorIndex, vectorIndexDescription } from '../src/vector-store/mongodb-vector-index.js';
import { MongoDbVectorStoreDriver } from '../src/vector-store/mongodb-vector-store-driver.js';
import { CompatServer } from './fixtures/compat-server.js';
import { errorReply, type MongoWireRecorder, startMongoWireRecorder } from './mongo-wire-recorder.js';
import { Counter } from './vector-store-fixtures.js';

// What the typed driver gained so that MongoDbMemoryDb is core's MemoryDb over it: the vector
// size read back from the search index (vectorDimensions), km 0.x's layout (search index name,
// no `_id` filter field, the payload as a sub-document, the score as `score`, every collection
// listed), listings in key order as finds in km's id order, and a missing namespace as
// collection_not_found. Commands are checked against the wire recorder (shapes, not search).
let recorder: MongoWireRecorder;
let server: CompatServer;
let drivers: MongoDbVectorStoreDriver[] = [];

beforeAll(async () => {
  recorder = await startMongoWireRecorder();
});
afterAll(async () => {
  for (const d of drivers) await d.close();
  await recorder.close();
});
beforeEach(async () => {
  for (const d of drivers) await d.close();
  drivers = [];
  server = new CompatServer();
  recorder.answer = server.answer;
  recorder.commands.length = 0;
});

const KM: MongoDbStorageLayout = {
  searchIndexName: 'km_vector',
  keyFilterField: false,
  jsonProperties: ['payload'],
  scoreField: 'score',
  listEveryCollection: true,
  uncheckedDeletes: true,
};
const open = (layout?: MongoDbStorageLayout) => {
  const driver = new MongoDbVectorStoreDriver({ url: recorder.url, collectionPrefix: '', indexReadyTimeoutMs: 5_000 }, layout);
  drivers.push(driver);
  return driver;
};
const sent = (name: string) => recorder.commands.filter((c) => c.name === name);
const km = new KmRecordLayout({ storageNames: { id: '_id', content: false } });
const definition = km.definition(3);

describe('vectorDimensions', () => {
  it('reads numDimensions of the vector field from the queryable search index', async () => {
    server.load({ 'km-a': [] }, { 'km-a': vectorIndexDescription(definition, { name: 'km_vector', keyFilterField: false }) });
    expect(await open(KM).vectorDimensions('km-a', 'embedding')).toBe(3);
    expect(await open(KM).vectorDimensions('km-a', 'other')).toBeUndefined();
  });

  it('is undefined for a missing collection, one without a search index, an index still building, or a collection dropped meanwhile', async () => {
    const driver = open(KM);
    expect(await driver.vectorDimensions('km-gone', 'embedding')).toBeUndefined();
    server.collections.set('km-bare', new Map());
    expect(await driver.vectorDimensions('km-bare', 'embedding')).toBeUndefined();
    await driver.createCollection('km-new', definition);
    server.searchIndexes.get('km-new')!.listingsUntilReady = 1;
    expect(await driver.vectorDimensions('km-new', 'embedding')).toBeUndefined();
    expect(await driver.vectorDimensions('km-new', 'embedding')).toBe(3);
    recorder.answer = (command) =>
      command.name === 'aggregate' ? errorReply(26, 'NamespaceNotFound', 'Collection km.km-new does not exist') : server.answer(command);
    expect(await driver.vectorDimensions('km-new', 'embedding')).toBeUndefined();
  });
});

describe("km 0.x's layout", () => {
  it('creates the search index km_vector: the vector and tags, no _id filter field (as km 0.x did)', async () => {
    await open(KM).createCollection('km-a', definition);
    expect(sent('createSearchIndexes')[0]!.command.indexes).toEqual([
      {
        name: 'km_vector',
        type: 'vectorSearch',
        definition: {
          fields: [
            { type: 'vector', path: 'embedding', numDimensions: 3, similarity: 'cosine' },
            { type: 'filter', path: 'tags' },
          ],
        },
      },
    ]);
    expect(vectorIndexDescription(definition).definition.fields).toContainEqual({ type: 'filter', path: '_id' });
  });

  it('stores a JSON property as a sub-document and reads it back as JSON text; a stored value that is not a document reads as null', async () => {
    const driver = open(KM);
    await driver.createCollection('km-a', definition);
    const payload = JSON.stringify({ text: 'héllo 🌍', nested: { list: [1, 2.5, null] } });
    await driver.upsert('km-a', definition, [{ _id: 'x', tags: ['u:a'], payload, embedding: new Float32Array([1, 0, 0]) }]);
    const [update] = sent('update');
    expect((update!.command.updates as Document[])[0]!.u).toEqual({
      _id: 'x',
      tags: ['u:a'],
      payload: { text: 'héllo 🌍', nested: { list: [1, 2.5, null] } },
      embedding: [1, 0, 0],
    });
    expect(((update!.raw.updates as Document[])[0]!.u.embedding as unknown[]).every((v) => v instanceof Double)).toBe(true);
    expect(await driver.get('km-a', definition, ['x'], false)).toEqual([{ _id: 'x', tags: ['u:a'], payload }]);
    server.collections.get('km-a')!.set('y', { _id: 'y', tags: [], payload: [1, 2] });
    expect(await driver.get('km-a', definition, ['y'], false)).toEqual([{ _id: 'y', tags: [], payload: null }]);
  });

  it('projects the search score into `score` and reads it from there', async () => {
    const driver = open(KM);
    await driver.createCollection('km-a', definition);
    await driver.upsert('km-a', definition, [{ _id: 'x', tags: [], payload: '{}', embedding: new Float32Array([1, 0, 0]) }]);
    const found = await driver.search('km-a', definition, {
      vectorProperty: definition.vectors[0]!,
      vector: new Float32Array([1, 0, 0]),
      limit: 2,
      filter: undefined,
      includeVectors: false,
    });
    const search = sent('aggregate').find((c) => '$vectorSearch' in (c.command.pipeline as Document[])[0]!)!;
    expect((search.command.pipeline as Document[])[1]).toEqual({
      $project: { tags: 1, payload: 1, score: { $meta: 'vectorSearchScore' } },
    });
    expect((search.command.pipeline as Document[])[0]!.$vectorSearch.index).toBe('km_vector');
    expect(found).toEqual([[{ _id: 'x', tags: [], payload: '{}' }, 1]]);
  });

  it('lists every collection under the prefix (km index names such as -x, prefixes with a dot), the default only valid collection names', async () => {
    for (const name of ['km-a', 'km--x', 'km.b', 'other']) server.collections.set(name, new Map());
    expect((await open(KM).listCollections()).sort()).toEqual(['km--x', 'km-a', 'km.b', 'other']);
    expect(await open().listCollections()).toEqual(['km-a', 'km--x', 'other'].sort());
  });
});

describe('query in key order', () => {
  it('is a find sorted by _id; string keys come in km order (UTF-16), re-read when MongoDB orders them apart; no limit sent for "all"', async () => {
    const driver = open(KM);
    await driver.createCollection('km-a', definition);
    const ids = ['b', 'a\uffff', 'a😀', 'c'];
    await driver.upsert(
      'km-a',
      definition,
      ids.map((_id) => ({ _id, tags: [], payload: '{}', embedding: new Float32Array([1, 0, 0]) })),
    );
    recorder.commands.length = 0;
    const byKey = { filter: undefined, orderBy: [{ storageName: '_id', descending: false }], includeVectors: false };
    expect((await driver.query!('km-a', definition, { ...byKey, limit: 2 })).map((r) => r._id)).toEqual(['a😀', 'a\uffff']);
    expect(sent('find').map((c) => [c.command.limit, c.command.filter])).toEqual([
      [2, {}],
      [undefined, {}],
      [undefined, { _id: { $in: ['a😀', 'a\uffff'] } }],
    ]);
    recorder.commands.length = 0;
    expect((await driver.query!('km-a', definition, { ...byKey, limit: Number.MAX_SAFE_INTEGER })).map((r) => r._id)).toEqual([
      'a😀',
      'a\uffff',
      'b',
      'c',
    ]);
    expect(sent('find')).toHaveLength(1);
    expect(sent('find')[0]!.command).not.toHaveProperty('limit');
    expect(sent('find')[0]!.command).toMatchObject({ sort: { _id: 1 }, projection: { tags: 1, payload: 1 } });
  });

  it('integer keys keep MongoDB numeric order', async () => {
    const driver = open();
    await driver.createCollection('c', Counter);
    await driver.upsert(
      'c',
      Counter,
      [10, 9, 100].map((id) => ({ id, label: String(id), v: new Float32Array([1, 0]) })),
    );
    const rows = await driver.query!('c', Counter, { filter: undefined, orderBy: [], limit: 10, includeVectors: false });
    expect(rows.map((r) => r.id)).toEqual([9, 10, 100]);
  });
});

describe('errors', () => {
  it('a search index declaring other dimensions is vector_size_mismatch; another similarity stays invalid_argument', () => {
    const fields = vectorIndexDescription(definition).definition.fields as Document[];
    const resized = fields.map((f) => (f.type === 'vector' ? { ...f, numDimensions: 4 } : f));
    expect(() => checkVectorIndex('km-a', definition, { latestDefinition: { fields: resized } })).toThrow(
      expect.objectContaining({ code: 'vector_size_mismatch' }),
    );
    const other = fields.map((f) => (f.type === 'vector' ? { ...f, numDimensions: 4, similarity: 'euclidean' } : f));
    expect(() => checkVectorIndex('km-a', definition, { latestDefinition: { fields: other } })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('a missing namespace from the server is collection_not_found (MemoryDb maps it to a missing index)', async () => {
    server.collections.set('km-a', new Map());
    recorder.answer = (command) =>
      command.name === 'aggregate' ? errorReply(26, 'NamespaceNotFound', 'Collection km.km-a does not exist') : server.answer(command);
    const error = await open(KM)
      .createCollection('km-a', definition)
      .catch((e: unknown) => e);
    expect(isKmError(error, 'collection_not_found')).toBe(true);
  });
});

describe('uncheckedDeletes', () => {
  it('delete is the deleteMany alone, no listCollections first; in a missing collection it is a no-op that creates nothing', async () => {
    server.load({ 'km-a': [{ _id: 'x', embedding: [1, 0, 0], tags: [], payload: {} }] }, {});
    const driver = open(KM);
    await driver.delete('km-a', definition, ['x']);
    await driver.delete('km-gone', definition, ['y']);
    expect(recorder.commands.map((c) => c.name).filter((n) => n !== 'hello' && n !== 'ismaster' && n !== 'endSessions')).toEqual([
      'delete',
      'delete',
    ]);
    expect(await driver.collectionExists('km-gone')).toBe(false);
  });

  it('without it (typed collections), delete asks listCollections first: a missing collection is collection_not_found', async () => {
    const driver = open();
    const error = await driver.delete('km-gone', definition, ['y']).catch((e: unknown) => e);
    expect(isKmError(error, 'collection_not_found')).toBe(true);
    expect(sent('listCollections')).toHaveLength(1);
    expect(sent('delete')).toHaveLength(0);
  });
});
