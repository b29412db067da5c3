import { isKmError, MemoryFilters } from '@km/core';
import { Double, type Document } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MongoDbMemoryDb } from '../src/index.js';
import { AtlasLikeServer } from './atlas-like-server.js';
import { errorReply, type MongoWireRecorder, startMongoWireRecorder } from './mongo-wire-recorder.js';

// A MongoDB wire-protocol recorder answering like a server with Atlas Vector Search, to check the
// commands the connector sends (names, namespaces, pipelines, options). It checks shapes only:
// whether the connector works is proven by the conformance suite against a real deployment
// (tests-integration/test/mongodb.test.ts).
let recorder: MongoWireRecorder;
let atlas: AtlasLikeServer;
let dbs: MongoDbMemoryDb[];

beforeAll(async () => {
  recorder = await startMongoWireRecorder();
});
afterAll(async () => {
  for (const db of dbs) await db.close();
  await recorder.close();
});
beforeEach(async () => {
  for (const db of dbs ?? []) await db.close();
  dbs = [];
  recorder.commands.length = 0;
  atlas = new AtlasLikeServer();
  recorder.answer = atlas.answer;
});

const open = (options: Partial<ConstructorParameters<typeof MongoDbMemoryDb>[0]> = {}) => {
  const db = new MongoDbMemoryDb({ url: recorder.url, ...options });
  dbs.push(db);
  return db;
};
const sent = (name: string) => recorder.commands.filter((c) => c.name === name);
const collect = async <T>(items: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};
const existing = (name: string, size: number) => atlas.existing(name, size);

describe('MongoDB commands', () => {
  it('createIndex: create the collection, createSearchIndexes, then poll $listSearchIndexes until queryable', async () => {
    await open({ database: 'kmdb' }).createIndex(' Notes ', 3);
    expect(sent('create').map((c) => [c.db, c.command.create])).toEqual([['kmdb', 'km-notes']]);
    expect(sent('createSearchIndexes')[0]!.command).toMatchObject({
      createSearchIndexes: 'km-notes',
      indexes: [
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
      ],
    });
    const listings = sent('aggregate').filter((c) => '$listSearchIndexes' in (c.command.pipeline as Document[])[0]!);
    expect(listings.at(-1)!.command).toMatchObject({ aggregate: 'km-notes', pipeline: [{ $listSearchIndexes: { name: 'km_vector' } }] });
    // Once before creating, then until queryable (the recorder reports it building once).
    expect(listings.length).toBeGreaterThanOrEqual(3);
  });

  it('createIndex on a collection whose search index has another size throws vector_size_mismatch and creates nothing', async () => {
    existing('km-notes', 4);
    await expect(open().createIndex('notes', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    expect(sent('createSearchIndexes')).toHaveLength(0);
  });

  it('createIndex that races another creator: NamespaceExists is fine, the existing index of the same size is kept', async () => {
    atlas.collections.add('km-notes');
    atlas.searchIndexes.set('km-notes', { size: 3, buildingFor: 2 });
    await open().createIndex('notes', 3);
    expect(sent('create')).toHaveLength(1);
    expect(sent('createSearchIndexes')).toHaveLength(0);
  });

  it('upsertBatch: bulk update with replacement upserts, unordered, one command per batch, the vector as doubles', async () => {
    existing('km-i', 2);
    const db = open({ batchSize: 2 });
    const ids = await db.upsertBatch(
      'i',
      ['a', 'b', 'c'].map((id) => ({ id, vector: [1, 2], tags: { user: ['x'] }, payload: { text: id } })),
    );
    expect(ids).toEqual(['a', 'b', 'c']);
    const updates = sent('update');
    expect(updates.map((u) => (u.command.updates as unknown[]).length)).toEqual([2, 1]);
    expect(updates[0]!.command).toMatchObject({ update: 'km-i', ordered: false });
    // As on a replica set (Atlas): in a session, as a retryable write.
    expect(Object.keys(updates[0]!.command)).toEqual(expect.arrayContaining(['lsid', 'txnNumber']));
    expect((updates[0]!.command.updates as Document[])[0]).toMatchObject({
      q: { _id: 'a' },
      u: { embedding: [1, 2], tags: ['user:x'], payload: { text: 'a' } },
      upsert: true,
    });
    expect((updates[0]!.command.updates as Document[])[0]!.multi).not.toBe(true);
    const raw = (updates[0]!.raw.updates as Document[])[0]!.u.embedding as unknown[];
    expect(raw.every((x) => x instanceof Double)).toBe(true);
  });

  it('getSimilarList: aggregate with $vectorSearch first (filter, numCandidates, limit) and the score projected', async () => {
    existing('km-i', 3);
    const results = await collect(
      open({ numCandidates: 50 }).getSimilarList('i', [1, 0, 0], {
        filters: [MemoryFilters.byTag('user', 'a').notTag('type', 'draft')],
        limit: 5,
        withEmbeddings: true,
      }),
    );
    const search = sent('aggregate').find((c) => '$vectorSearch' in (c.command.pipeline as Document[])[0]!)!;
    expect(search.command).toMatchObject({
      aggregate: 'km-i',
      pipeline: [
        {
          $vectorSearch: {
            index: 'km_vector',
            path: 'embedding',
            queryVector: [1, 0, 0],
            numCandidates: 50,
            limit: 5,
            // NOT is `$nor` of `$eq` (km 0.x sent `$nin`: no element equals it, the same documents).
            filter: { $and: [{ tags: { $eq: 'user:a' } }, { $nor: [{ tags: { $eq: 'type:draft' } }] }] },
          },
        },
        { $project: { tags: 1, payload: 1, embedding: 1, score: { $meta: 'vectorSearchScore' } } },
      ],
    });
    expect(results.map(([r, s]) => [r.id, Array.from(r.vector), s])).toEqual([['d=a//p=1', [0, 1, 0], 0.5]]);
  });

  it('getList: find with the filter in MQL, sorted by _id, limited, the fields but the vector projected', async () => {
    existing('km-i', 3);
    const records = await collect(open().getList('i', { filters: [MemoryFilters.byTag('user', 'a')], limit: 2 }));
    expect(sent('find')[0]!.command).toMatchObject({
      find: 'km-i',
      filter: { tags: { $eq: 'user:a' } },
      sort: { _id: 1 },
      limit: 2,
      projection: { tags: 1, payload: 1 },
    });
    expect(records.map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('delete: a delete by _id; deleteIndex: drop the collection', async () => {
    existing('km-i', 3);
    const db = open();
    await db.delete('i', { id: 'd=x//p=1' });
    expect(sent('delete')[0]!.command).toMatchObject({ delete: 'km-i', deletes: [{ q: { _id: { $in: ['d=x//p=1'] } }, limit: 0 }] });
    await db.deleteIndex('i');
    expect(sent('drop')[0]!.command).toMatchObject({ drop: 'km-i' });
  });

  it('each delete after the first is its delete command alone (the size is known; no listCollections per delete), as km 0.x sent', async () => {
    existing('km-i', 3);
    const db = open();
    await db.delete('i', { id: 'a' });
    const before = recorder.commands.length;
    await db.delete('i', { id: 'b' });
    expect(recorder.commands.slice(before).map((c) => c.name)).toEqual(['delete']);
  });

  it('a collection dropped behind its back: the error of a write names the index, as km 0.x did, not the collection', async () => {
    existing('km-i', 3);
    const db = open();
    await db.delete('i', { id: 'a' }); // the size is now known
    for (const reply of [
      errorReply(26, 'NamespaceNotFound', 'ns not found'),
      { ok: 1, n: 0, writeErrors: [{ index: 0, code: 26, codeName: 'NamespaceNotFound', errmsg: 'ns not found' }] },
    ]) {
      recorder.answer = (command) => (command.name === 'update' ? reply : atlas.answer(command));
      const error = await db.upsert('i', { id: 'b', vector: [1, 0, 0], tags: {}, payload: {} }).catch((e: unknown) => e);
      expect(isKmError(error, 'index_not_found')).toBe(true);
      expect((error as Error).message).toContain('index "i" does not exist');
      expect((error as Error).message).not.toContain('km-i');
    }
  });

  it('a missing collection: listing and searching send no query; upserting throws index_not_found', async () => {
    const db = open();
    expect(await collect(db.getList('gone'))).toEqual([]);
    expect(await collect(db.getSimilarList('gone', [1, 0]))).toEqual([]);
    await expect(db.upsert('gone', { id: 'a', vector: [1], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'index_not_found'),
    );
    expect(sent('find')).toHaveLength(0);
    expect(sent('update')).toHaveLength(0);
  });

  it('a server without vector search: the first use throws not_configured naming what is needed', async () => {
    atlas.collections.add('km-i');
    recorder.answer = (command) =>
      command.name === 'aggregate'
        ? errorReply(40324, 'Location40324', "Unrecognized pipeline stage name: '$listSearchIndexes'")
        : atlas.answer(command);
    const db = open();
    await expect(collect(db.getSimilarList('i', [1, 0]))).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'not_configured') && /mongodb-atlas-local/.test(String(e)),
    );
    await expect(db.createIndex('i', 2)).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
  });

  it('$vectorSearch refused by the server (a stage it does not know) is not_configured too', async () => {
    existing('km-i', 2);
    recorder.answer = (command) =>
      command.name === 'aggregate' && '$vectorSearch' in (command.command.pipeline as Document[])[0]!
        ? errorReply(6047400, 'Location6047400', '$vectorSearch stage is only allowed on MongoDB Atlas')
        : atlas.answer(command);
    await expect(collect(open().getSimilarList('i', [1, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
  });

  it('getIndexes lists the collections under the prefix', async () => {
    for (const name of ['km-a', 'km-b', 'other', 'km-']) atlas.collections.add(name);
    expect(await open().getIndexes()).toEqual(['a', 'b']);
  });
});
