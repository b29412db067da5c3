import { MemoryFilters, ReservedTags, type IMemoryDb, type MemoryRecord, type RecordTagsUpdate } from '@km/core';
import { describe, expect, it } from 'vitest';
import { collect, eventually, randomName } from '../util/async.js';
import { record, upsertAll, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

/** The reason the cases skip on a memory DB that cannot replace tags in place. */
export const NO_UPDATE_TAGS = 'the memory DB has no updateTags (core rewrites records through upsert instead)';

type TagUpdating = IMemoryDb & { updateTags: (index: string, updates: readonly RecordTagsUpdate[]) => Promise<void> };

const hasUpdateTags = (db: IMemoryDb): db is TagUpdating => typeof db.updateTags === 'function';

/** The records of a document's two partitions and of another document, as core writes them. */
const SEED: MemoryRecord[] = [
  record(
    'd1//p1',
    [1, 0, 0],
    { [ReservedTags.documentId]: ['d1'], [ReservedTags.partitionNumber]: ['0'], user: ['alice'] },
    { text: 'first probe' },
  ),
  record(
    'd1//p2',
    [0.6, 0.8, 0],
    { [ReservedTags.documentId]: ['d1'], [ReservedTags.partitionNumber]: ['1'], user: ['alice'] },
    { text: 'second probe' },
  ),
  record(
    'd2//p1',
    [0, 0.6, 0.8],
    { [ReservedTags.documentId]: ['d2'], [ReservedTags.partitionNumber]: ['0'], user: ['alice'] },
    { text: 'third probe' },
  ),
];

/** New tags of d1's partitions: its own tags changed, reserved tags as given (one of them new). */
const NEW_TAGS: RecordTagsUpdate[] = [
  {
    id: 'd1//p1',
    tags: {
      [ReservedTags.documentId]: ['d1'],
      [ReservedTags.partitionNumber]: ['0'],
      [ReservedTags.fileType]: ['text/plain'],
      user: ['bob'],
      topic: ['x', 'y'],
    },
  },
  {
    id: 'd1//p2',
    tags: {
      [ReservedTags.documentId]: ['d1'],
      [ReservedTags.partitionNumber]: ['1'],
      [ReservedTags.fileType]: ['text/plain'],
      user: ['bob'],
      topic: ['x', 'y'],
    },
  },
];

/** `updateTags`, for memory DBs that have it: tags replaced in place, everything else as it was. */
export function updateTagsCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);
  const idsOf = async (db: IMemoryDb, index: string, filter: ReturnType<typeof MemoryFilters.byTag>) =>
    (await collect(db.getList(index, { filters: [filter] }))).map((r) => r.id);

  describe('updateTags', () => {
    it('replaces the tags of the records named: the new tags filter, the old ones no longer; reserved tags as given', async (ctx) => {
      const { db, index } = await fresh();
      if (!hasUpdateTags(db)) return ctx.skip(NO_UPDATE_TAGS);
      await db.createIndex(index, 3);
      await upsertAll(db, index, SEED);
      await wait(async () => expect(await collect(db.getList(index))).toHaveLength(3));
      await db.updateTags(index, NEW_TAGS);
      await wait(async () => expect(await idsOf(db, index, MemoryFilters.byTag('user', 'bob'))).toEqual(['d1//p1', 'd1//p2']));
      expect(await idsOf(db, index, MemoryFilters.byTag('user', 'alice'))).toEqual(['d2//p1']);
      expect(await idsOf(db, index, MemoryFilters.byTag('topic', 'y'))).toEqual(['d1//p1', 'd1//p2']);
      expect(await idsOf(db, index, MemoryFilters.byTag(ReservedTags.fileType, 'text/plain'))).toEqual(['d1//p1', 'd1//p2']);
      expect(await idsOf(db, index, MemoryFilters.byDocument('d1'))).toEqual(['d1//p1', 'd1//p2']);
      const tags = Object.fromEntries((await collect(db.getList(index))).map((r) => [r.id, r.tags]));
      expect(tags).toEqual({ 'd1//p1': NEW_TAGS[0]!.tags, 'd1//p2': NEW_TAGS[1]!.tags, 'd2//p1': SEED[2]!.tags });
    });

    it('leaves vectors, payloads and similarity as they were', async (ctx) => {
      const { db, index, capabilities } = await fresh();
      if (!hasUpdateTags(db)) return ctx.skip(NO_UPDATE_TAGS);
      await db.createIndex(index, 3);
      await upsertAll(db, index, SEED);
      await wait(async () => expect(await collect(db.getList(index))).toHaveLength(3));
      const query = capabilities.vectorSearch ? [1, 0.5, 0.1] : 'probe';
      const similar = async (filter?: ReturnType<typeof MemoryFilters.byTag>) =>
        (await collect(db.getSimilarList(index, query, { minRelevance: -1, limit: 10, ...(filter ? { filters: [filter] } : {}) }))).map(
          ([r, score]) => [r.id, score] as const,
        );
      const stored = async () =>
        (await collect(db.getList(index, { withEmbeddings: true }))).map((r) => ({
          id: r.id,
          vector: Array.from(r.vector).map((x) => Math.round(x * 1e4) / 1e4),
          payload: r.payload,
        }));
      const before = { similar: await similar(), stored: await stored() };
      await db.updateTags(index, NEW_TAGS);
      await wait(async () => expect(await idsOf(db, index, MemoryFilters.byTag('user', 'bob'))).toHaveLength(2));
      expect(await stored()).toEqual(before.stored);
      const after = await similar();
      expect(after.map(([id]) => id)).toEqual(before.similar.map(([id]) => id));
      after.forEach(([, score], i) => expect(score).toBeCloseTo(before.similar[i]![1], 5));
      // A search under a new tag finds the retagged records with the same similarity.
      const underNewTag = await similar(MemoryFilters.byTag('user', 'bob'));
      const retagged = before.similar.filter(([id]) => id.startsWith('d1//'));
      expect(underNewTag.map(([id]) => id)).toEqual(retagged.map(([id]) => id));
      underNewTag.forEach(([, score], i) => expect(score).toBeCloseTo(retagged[i]![1], 5));
    });

    it('skips ids without a record, and is a no-op on a missing index', async (ctx) => {
      const { db, index } = await fresh();
      if (!hasUpdateTags(db)) return ctx.skip(NO_UPDATE_TAGS);
      await db.createIndex(index, 3);
      await upsertAll(db, index, SEED);
      await wait(async () => expect(await collect(db.getList(index))).toHaveLength(3));
      await db.updateTags(index, [{ id: 'missing//p1', tags: { user: ['bob'] } }, NEW_TAGS[0]!]);
      await wait(async () => expect(await idsOf(db, index, MemoryFilters.byTag('user', 'bob'))).toEqual(['d1//p1']));
      expect((await collect(db.getList(index))).map((r) => r.id)).toEqual(['d1//p1', 'd1//p2', 'd2//p1']);

      const missing = randomName('km-conf-missing');
      await expect(db.updateTags(missing, NEW_TAGS)).resolves.toBeUndefined();
      expect(await db.getIndexes()).not.toContain(missing);
    });
  });
}
