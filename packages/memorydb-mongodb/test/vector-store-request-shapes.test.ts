import { isKmError } from '@km/core';
import { Double, type Document } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MongoDbVectorStoreDriver } from '../src/vector-store/mongodb-vector-store-driver.js';
import { vectorIndexDescription } from '../src/vector-store/mongodb-vector-index.js';
import { cursorReply, errorReply, type MongoWireRecorder, type RecordedCommand, startMongoWireRecorder } from './mongo-wire-recorder.js';
import { Counter, Hotel, property } from './vector-store-fixtures.js';

// A MongoDB wire-protocol recorder answering like a deployment with Atlas Vector Search, to check
// the commands the vector-store driver sends. Shapes only: whether the connector works is proven
// by describeVectorStore against a real deployment (tests-integration/test/vector-store-mongodb.test.ts).
let recorder: MongoWireRecorder;
/** Collections, with the fields of their search index (undefined: none) and listings left before it is queryable. */
let collections: Map<string, { fields?: Document[]; buildingFor: number }>;
let searchHits: Document[];
let drivers: MongoDbVectorStoreDriver[] = [];

function answer(command: RecordedCommand): Document | undefined {
  const c = command.command;
  const name = String(c[command.name]);
  switch (command.name) {
    case 'listCollections': {
      const wanted = (c.filter as { name?: string } | undefined)?.name;
      const names = [...collections.keys(), 'other', 'kmvs-bad name'].filter((n) => wanted === undefined || n === wanted);
      return cursorReply(
        'kmdb.$cmd.listCollections',
        names.map((n) => ({ name: n, type: 'collection' })),
      );
    }
    case 'create':
      if (collections.has(name)) return errorReply(48, 'NamespaceExists', 'exists');
      collections.set(name, { buildingFor: 0 });
      return undefined;
    case 'drop':
      return collections.delete(name) ? undefined : errorReply(26, 'NamespaceNotFound', 'ns not found');
    case 'createSearchIndexes':
      collections.get(name)!.fields = (c.indexes as Array<{ definition: { fields: Document[] } }>)[0]!.definition.fields;
      collections.get(name)!.buildingFor = 1;
      return { indexesCreated: [{ id: 'x', name: 'kmvs_vector' }], ok: 1 };
    case 'aggregate': {
      const first = (c.pipeline as Document[])[0]!;
      if ('$listSearchIndexes' in first) {
        const entry = collections.get(name);
        if (!entry?.fields) return cursorReply(`kmdb.${name}`, []);
        const queryable = entry.buildingFor-- <= 0;
        return cursorReply(`kmdb.${name}`, [
          { name: 'kmvs_vector', status: queryable ? 'READY' : 'BUILDING', queryable, latestDefinition: { fields: entry.fields } },
        ]);
      }
      return cursorReply(`kmdb.${name}`, searchHits);
    }
    case 'find':
      return cursorReply(`kmdb.${name}`, [{ _id: 7, label: 'seven', v: [3, 4] }]);
    case 'update':
      return { n: (c.updates as unknown[]).length, nModified: 0, ok: 1 };
    case 'delete':
      return { n: 1, ok: 1 };
    default:
      return undefined;
  }
}

beforeAll(async () => {
  recorder = await startMongoWireRecorder(answer);
});
afterAll(async () => {
  for (const driver of drivers) await driver.close();
  await recorder.close();
});
beforeEach(async () => {
  for (const driver of drivers) await driver.close();
  drivers = [];
  recorder.commands.length = 0;
  recorder.answer = answer;
  collections = new Map([['kmvs-hotels', { fields: vectorIndexDescription(Hotel).definition.fields as Document[], buildingFor: 0 }]]);
  searchHits = [];
});

const open = (options: { numCandidates?: number } = {}) => {
  const driver = new MongoDbVectorStoreDriver({ url: recorder.url, database: 'kmdb', ...options });
  drivers.push(driver);
  return driver;
};
const sent = (name: string) => recorder.commands.filter((c) => c.name === name);
const hotel = {
  hotelId: 'h1',
  'hotel name': 'Sea View',
  rating: 4.5,
  rooms: 3,
  pets: true,
  opened: new Date('2024-01-02T03:04:05Z'),
  tags: ['pool'],
  floors: [1, 2],
  description: null,
  embedding: new Float32Array([1, 0, 0]),
  dotVector: null,
  l2Vector: null,
};

describe('collections', () => {
  it('listCollections lists the collections under the prefix whose rest is a collection name', async () => {
    expect(await open().listCollections()).toEqual(['hotels']);
  });

  it('createCollection: create, $listSearchIndexes, createSearchIndexes with the definition, then poll until queryable', async () => {
    collections.clear();
    await open().createCollection('c', Counter);
    expect(sent('create').map((c) => [c.db, c.command.create])).toEqual([['kmdb', 'kmvs-c']]);
    expect(sent('createSearchIndexes')[0]!.command).toMatchObject({
      createSearchIndexes: 'kmvs-c',
      indexes: [
        {
          name: 'kmvs_vector',
          type: 'vectorSearch',
          definition: {
            fields: [
              { type: 'vector', path: 'v', numDimensions: 2, similarity: 'euclidean' },
              { type: 'filter', path: '_id' },
              { type: 'filter', path: 'label' },
            ],
          },
        },
      ],
    });
    expect(sent('aggregate').length).toBeGreaterThanOrEqual(3);
  });

  it('createCollection on an existing collection whose index lacks a field throws invalid_argument and creates no index', async () => {
    collections.set('kmvs-c', { fields: [{ type: 'vector', path: 'v', numDimensions: 2, similarity: 'euclidean' }], buildingFor: 0 });
    const error = await open()
      .createCollection('c', Counter)
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain('no filter field "label"');
    expect(sent('createSearchIndexes')).toHaveLength(0);
  });

  it('deleteCollection drops the collection; a missing one is no error', async () => {
    await open().deleteCollection('hotels');
    await open().deleteCollection('gone');
    expect(sent('drop').map((c) => c.command.drop)).toEqual(['kmvs-hotels', 'kmvs-gone']);
  });
});

describe('records', () => {
  it('upsert: replacement upserts by _id, unordered, null values left out, vectors as doubles', async () => {
    await open().upsert('hotels', Hotel, [hotel]);
    const update = sent('update')[0]!;
    expect(update.command).toMatchObject({ update: 'kmvs-hotels', ordered: false });
    const [statement] = update.command.updates as Document[];
    expect(statement).toMatchObject({ q: { _id: 'h1' }, upsert: true });
    expect(statement!.u).toEqual({
      _id: 'h1',
      'hotel name': 'Sea View',
      rating: 4.5,
      rooms: 3,
      pets: true,
      opened: hotel.opened,
      tags: ['pool'],
      floors: [1, 2],
      embedding: [1, 0, 0],
    });
    const raw = (update.raw.updates as Document[])[0]!.u.embedding as unknown[];
    expect(raw.every((x) => x instanceof Double)).toBe(true);
  });

  it('upsert and delete on a missing collection throw collection_not_found and write nothing', async () => {
    for (const write of [
      (d: MongoDbVectorStoreDriver) => d.upsert('gone', Hotel, [hotel]),
      (d: MongoDbVectorStoreDriver) => d.delete('gone', Hotel, ['h1']),
    ]) {
      const error = await write(open()).catch((e: unknown) => e);
      expect(isKmError(error, 'collection_not_found')).toBe(true);
    }
    expect(sent('update')).toHaveLength(0);
    expect(sent('delete')).toHaveLength(0);
  });

  it('get: one find by _id $in with the data (and vectors when asked) projected; delete: one deleteMany', async () => {
    collections.set('kmvs-c', { buildingFor: 0 });
    const records = await open().get('c', Counter, [7, 8], true);
    expect(sent('find')[0]!.command).toMatchObject({ find: 'kmvs-c', filter: { _id: { $in: [7, 8] } }, projection: { label: 1, v: 1 } });
    expect(records).toEqual([{ id: 7, label: 'seven', v: new Float32Array([3, 4]) }]);
    await open().delete('c', Counter, [7, 8]);
    expect(sent('delete')[0]!.command).toMatchObject({ delete: 'kmvs-c', deletes: [{ q: { _id: { $in: [7, 8] } }, limit: 0 }] });
  });
});

describe('search', () => {
  const query = (overrides: Record<string, unknown> = {}) => ({
    vectorProperty: Hotel.vectors[0]!,
    vector: new Float32Array([1, 0, 0]),
    limit: 4,
    filter: undefined,
    includeVectors: false,
    ...overrides,
  });

  it('$vectorSearch first (path, doubles, numCandidates, limit, the filter as pre-filter), then the data and the score projected', async () => {
    searchHits = [{ _id: 'h1', 'hotel name': 'Sea View', rating: 4.5, __km_score: 0.9 }];
    const results = await open({ numCandidates: 40 }).search(
      'hotels',
      Hotel,
      query({ filter: { op: 'gte', property: property(Hotel, 'rating'), value: 4 } }),
    );
    const search = sent('aggregate').find((c) => '$vectorSearch' in (c.command.pipeline as Document[])[0]!)!;
    expect(search.command.pipeline).toEqual([
      {
        $vectorSearch: {
          index: 'kmvs_vector',
          path: 'embedding',
          queryVector: [1, 0, 0],
          numCandidates: 40,
          limit: 4,
          filter: { rating: { $gte: 4 } },
        },
      },
      {
        $project: {
          'hotel name': 1,
          rating: 1,
          rooms: 1,
          pets: 1,
          opened: 1,
          tags: 1,
          floors: 1,
          description: 1,
          __km_score: { $meta: 'vectorSearchScore' },
        },
      },
    ]);
    expect(((search.raw.pipeline as Document[])[0]!.$vectorSearch.queryVector as unknown[]).every((x) => x instanceof Double)).toBe(true);
    expect(results).toHaveLength(1);
    expect(results[0]![0]).toMatchObject({ hotelId: 'h1', 'hotel name': 'Sea View', rating: 4.5, pets: null });
    expect(results[0]![1]).toBeCloseTo(0.8, 6);
  });

  it('a euclidean hit scored 1 / (1 + d) gives d back; a filter matching nothing sends no search', async () => {
    searchHits = [{ _id: 'h1', __km_score: 0.25 }];
    const [[, distance]] = (await open().search('hotels', Hotel, query({ vectorProperty: Hotel.vectors[2]! }))) as [[unknown, number]];
    expect(distance).toBeCloseTo(3, 6);
    recorder.commands.length = 0;
    expect(await open().search('hotels', Hotel, query({ filter: { op: 'in', property: property(Hotel, 'rooms'), values: [] } }))).toEqual(
      [],
    );
    expect(sent('aggregate')).toHaveLength(0);
  });
});

describe('query', () => {
  it('an aggregation: $match, missing-value flags, $sort (flags, values, _id), $limit, $project', async () => {
    searchHits = [{ _id: 'h1', rating: 4.5 }];
    const records = await open().query!('hotels', Hotel, {
      filter: { op: 'eq', property: property(Hotel, 'pets'), value: true },
      orderBy: [
        { storageName: 'rating', descending: true },
        { storageName: 'hotelId', descending: false },
      ],
      limit: 7,
      includeVectors: false,
    });
    const [aggregate] = sent('aggregate');
    const missing = (field: string) => ({
      $cond: [{ $eq: [{ $ifNull: [{ $getField: { field: { $literal: field }, input: '$$CURRENT' } }, null] }, null] }, 1, 0],
    });
    expect(aggregate!.command.pipeline).toEqual([
      { $match: { pets: { $eq: true } } },
      { $addFields: { __km_missing_0: missing('rating'), __km_missing_1: missing('_id') } },
      { $sort: { __km_missing_0: 1, rating: -1, __km_missing_1: 1, _id: 1 } },
      { $limit: 7 },
      { $project: { 'hotel name': 1, rating: 1, rooms: 1, pets: 1, opened: 1, tags: 1, floors: 1, description: 1 } },
    ]);
    expect(Object.keys((aggregate!.command.pipeline as Document[])[2]!.$sort)).toEqual([
      '__km_missing_0',
      'rating',
      '__km_missing_1',
      '_id',
    ]);
    expect(records).toEqual([expect.objectContaining({ hotelId: 'h1', rating: 4.5, pets: null })]);
  });

  it('without an order (or by the key ascending) it is a find sorted by _id; a filter that matches nothing sends nothing', async () => {
    await open().query!('hotels', Hotel, { filter: undefined, orderBy: [], limit: 3, includeVectors: false });
    expect(sent('aggregate')).toHaveLength(0);
    expect(sent('find')[0]!.command).toMatchObject({ find: 'kmvs-hotels', filter: {}, sort: { _id: 1 }, limit: 3 });
    recorder.commands.length = 0;
    expect(await open().query!('hotels', Hotel, { filter: { op: 'or', nodes: [] }, orderBy: [], limit: 3, includeVectors: false })).toEqual(
      [],
    );
    expect(sent('aggregate')).toHaveLength(0);
    expect(sent('find')).toHaveLength(0);
  });
});
