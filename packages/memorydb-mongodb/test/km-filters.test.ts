import { FILTER_CASES, FILTER_SEED, MATCH_ALL_FILTERS } from '@km/conformance';
import { type MemoryFilter, MemoryFilters, matchesFilters } from '@km/core';
import type { Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoDbMemoryDb } from '../src/index.js';
import { CompatServer } from './fixtures/compat-server.js';
import { type MongoWireRecorder, startMongoWireRecorder } from './mongo-wire-recorder.js';

// km's filters on MongoDbMemoryDb go through the one translator (the typed driver's): a filter
// list becomes `contains` / `not contains` on `tags`, then MQL (`$eq`, `$nor` of `$eq`, `$and`,
// `$or`). Every FILTER_CASES entry, sent through the official driver and evaluated with MongoDB's
// array semantics by the fake server, selects what core's oracle (`matchesFilters`) selects on
// the seed; values stay operands.
let recorder: MongoWireRecorder;
let db: MongoDbMemoryDb;

beforeAll(async () => {
  recorder = await startMongoWireRecorder();
  recorder.answer = new CompatServer().answer;
  db = new MongoDbMemoryDb({ url: recorder.url, indexReadyTimeoutMs: 5_000 });
  await db.createIndex('f', 2);
  await db.upsertBatch(
    'f',
    Object.entries(FILTER_SEED).map(([id, tags]) => ({ id, vector: [1, 0], tags, payload: {} })),
  );
});
afterAll(async () => {
  await db.close();
  await recorder.close();
});

const listed = async (filters: readonly MemoryFilter[] | undefined) => {
  recorder.commands.length = 0;
  const ids: string[] = [];
  for await (const record of db.getList('f', filters ? { filters } : {})) ids.push(record.id);
  const find = recorder.commands.find((c) => c.name === 'find');
  return { ids, filter: find?.command.filter as Document | undefined };
};

describe('km filters on MongoDB', () => {
  it('no filter, an empty list or an empty filter: a find without a filter', async () => {
    for (const filters of MATCH_ALL_FILTERS) {
      const { ids, filter } = await listed(filters);
      expect(filter).toEqual({});
      expect(ids.sort()).toEqual(Object.keys(FILTER_SEED).sort());
    }
  });

  for (const [name, { filters }] of Object.entries(FILTER_CASES)) {
    it(`${name}: selects what core's oracle selects`, async () => {
      const { ids } = await listed(filters);
      const oracle = Object.entries(FILTER_SEED)
        .filter(([, tags]) => matchesFilters(tags, filters))
        .map(([id]) => id);
      expect(ids.sort()).toEqual(oracle.sort());
    });
  }

  it('the MQL sent: one $eq per value, NOT as $nor of $eq, OR as $or; values such as operators stay strings', async () => {
    const { filter } = await listed([
      MemoryFilters.byTag('user', '{"$gt":""}').byTag('$where', 'sleep(1000)').notTag('x', '$ne'),
      MemoryFilters.byTag('flag', null),
    ]);
    expect(filter).toEqual({
      $or: [
        {
          $and: [{ tags: { $eq: 'user:{"$gt":""}' } }, { tags: { $eq: '$where:sleep(1000)' } }, { $nor: [{ tags: { $eq: 'x:$ne' } }] }],
        },
        { tags: { $eq: 'flag' } },
      ],
    });
  });
});
