import { describe, expect, it } from 'vitest';
import {
  MemoryFilter,
  MemoryFilters,
  ReservedTags,
  cosineSimilarity,
  isKmError,
  matchesFilters,
  type IMemoryDb,
  type MemoryRecord,
  type TagCollection,
} from '../src/index.js';

/**
 * The DESIGN §4 semantics, run against any IMemoryDb. (The published form of this suite is
 * @km/conformance; this copy pins SimpleVectorDb's behaviour inside core.)
 */
export interface SemanticsOptions {
  /** False for keyword stores: relevance and vector cases are skipped with that reason. @default true */
  vectorSearch?: boolean;
}

export function describeMemoryDbSemantics(name: string, factory: () => Promise<IMemoryDb>, options: SemanticsOptions = {}): void {
  const vectorSearch = options.vectorSearch ?? true;
  const itVector = vectorSearch ? it : it.skip;
  const noVectors = vectorSearch ? '' : ' [skipped: keyword store, no vectors or cosine relevance]';
  const fresh = async () => ({ db: await factory(), index: `t-${Math.random().toString(36).slice(2, 10)}` });
  const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
    const out: T[] = [];
    for await (const x of it) out.push(x);
    return out;
  };
  const rec = (id: string, vector: number[], tags: TagCollection = {}, payload: Record<string, unknown> = {}): MemoryRecord => ({
    id,
    vector,
    tags,
    payload,
  });

  describe(`${name}: index lifecycle`, () => {
    it('normalises index names and lists them', async () => {
      const { db } = await fresh();
      await db.createIndex(' My_Index.v1 ', 3);
      await db.createIndex('', 3);
      const names = await db.getIndexes();
      expect(names).toContain('my-index-v1');
      expect(names).toContain('default');
      await db.upsert('MY INDEX v1', rec('a', [1, 0, 0]));
      expect((await collect(db.getList('my-index-v1'))).map((r) => r.id)).toEqual(['a']);
    });

    it('refuses invalid index names with a typed error', async () => {
      const { db } = await fresh();
      await expect(db.createIndex('bad*name', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
      await expect(db.upsert("x'; DROP TABLE y; --", rec('a', [1, 0, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    });

    it('deleting a missing index, or a record in it, is a no-op; searching it yields nothing', async () => {
      const { db, index } = await fresh();
      await db.deleteIndex(index);
      await db.delete(index, { id: 'nope' });
      expect(await collect(db.getList(index))).toEqual([]);
      expect(await collect(db.getSimilarList(index, vectorSearch ? [1, 0, 0] : 'word'))).toEqual([]);
    });

    it('deleteIndex removes the index and its records', async () => {
      const { db, index } = await fresh();
      await db.upsert(index, rec('a', [1, 0, 0]));
      await db.deleteIndex(index);
      expect(await db.getIndexes()).not.toContain(index);
      expect(await collect(db.getList(index))).toEqual([]);
    });
  });

  describe(`${name}: records`, () => {
    it('upsert is idempotent: the same id twice leaves one record with the latest content', async () => {
      const { db, index } = await fresh();
      await db.upsert(index, rec('a', [1, 0, 0], { v: ['1'] }, { text: 'first' }));
      await db.upsert(index, rec('a', [0, 1, 0], { v: ['2'] }, { text: 'second' }));
      const all = await collect(db.getList(index, { withEmbeddings: true }));
      expect(all).toHaveLength(1);
      expect(all[0]!.payload).toEqual({ text: 'second' });
      expect(all[0]!.tags).toEqual({ v: ['2'] });
      if (vectorSearch) expect(Array.from(all[0]!.vector)).toEqual([0, 1, 0]);
      expect(await collect(db.getList(index, { filters: [MemoryFilters.byTag('v', '1')] }))).toEqual([]);
    });

    it('batch upsert writes every record and returns ids in order', async () => {
      const { db, index } = await fresh();
      const records = Array.from({ length: 50 }, (_, i) => rec(`r${String(i).padStart(2, '0')}`, [i + 1, 1, 0]));
      const ids = db.upsertBatch ? await db.upsertBatch(index, records) : await Promise.all(records.map((r) => db.upsert(index, r)));
      expect(ids).toEqual(records.map((r) => r.id));
      expect(await collect(db.getList(index))).toHaveLength(50);
    });

    it('a batch with one invalid record writes nothing', async () => {
      const { db, index } = await fresh();
      await db.createIndex(index, 3);
      const bad = [rec('ok', [1, 0, 0]), rec('', [1, 0, 0])];
      await expect(db.upsertBatch!(index, bad)).rejects.toSatisfy((e: unknown) => isKmError(e));
      expect(await collect(db.getList(index))).toEqual([]);
    });

    it('getList returns records in id order; limit <= 0 means all', async () => {
      const { db, index } = await fresh();
      for (const id of ['c', 'a', 'b', 'd//p=1', 'd=x//p=2']) await db.upsert(index, rec(id, [1, 1, 0]));
      expect((await collect(db.getList(index, { limit: 0 }))).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd//p=1', 'd=x//p=2']);
      expect((await collect(db.getList(index, { limit: -1 }))).length).toBe(5);
      expect((await collect(db.getList(index, { limit: 2 }))).map((r) => r.id)).toEqual(['a', 'b']);
    });

    it('ids come back exactly as given', async () => {
      const { db, index } = await fresh();
      const ids = ['d=doc-1//p=abc', 'd=Doc.2//p=ÄÖ ü', "quote'\"id"];
      for (const id of ids) await db.upsert(index, rec(id, [0, 1, 1]));
      expect((await collect(db.getList(index))).map((r) => r.id).sort()).toEqual([...ids].sort());
    });

    it('delete removes one record; deleting a missing id is a no-op', async () => {
      const { db, index } = await fresh();
      await db.upsert(index, rec('a', [1, 0, 0]));
      await db.upsert(index, rec('b', [0, 1, 0]));
      await db.delete(index, { id: 'a' });
      await db.delete(index, { id: 'missing' });
      expect((await collect(db.getList(index))).map((r) => r.id)).toEqual(['b']);
    });

    itVector('withEmbeddings=false returns records without vectors, true with them' + noVectors, async () => {
      const { db, index } = await fresh();
      await db.upsert(index, rec('a', [0.5, -0.25, 2]));
      const [without] = await collect(db.getList(index, { withEmbeddings: false }));
      expect(without!.vector.length).toBe(0);
      const [withV] = await collect(db.getList(index, { withEmbeddings: true }));
      Array.from(withV!.vector).forEach((x, i) => expect(x).toBeCloseTo([0.5, -0.25, 2][i]!, 5));
      const [[similar]] = (await collect(db.getSimilarList(index, [0.5, -0.25, 2], { withEmbeddings: false }))) as [[MemoryRecord, number]];
      expect(similar.vector.length).toBe(0);
    });

    it('payload round-trips JSON values', async () => {
      const { db, index } = await fresh();
      const payload = { text: 'héllo "world" \n ✓', n: 1.5, neg: -3, b: false, nul: null, arr: [1, 'two', { three: [3] }], nested: { a: { b: 'c' } } };
      await db.upsert(index, rec('a', [1, 0, 0], {}, payload));
      const [record] = await collect(db.getList(index));
      expect(record!.payload).toEqual(payload);
    });

    itVector('refuses a vector of the wrong size with a typed error' + noVectors, async () => {
      const { db, index } = await fresh();
      await db.createIndex(index, 3);
      await expect(db.upsert(index, rec('a', [1, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    });
  });

  describe(`${name}: relevance`, () => {
    const vectors: Record<string, number[]> = {
      x: [1, 0, 0, 0],
      xy: [1, 1, 0, 0],
      y: [0, 2, 0, 0],
      mixed: [0.3, -0.7, 0.2, 0.9],
      opposite: [-1, 0, 0, 0],
    };
    const seed = async () => {
      const { db, index } = await fresh();
      for (const [id, v] of Object.entries(vectors)) await db.upsert(index, rec(id, v));
      return { db, index };
    };

    itVector('relevance equals cosine similarity within 1e-3, most relevant first' + noVectors, async () => {
      const { db, index } = await seed();
      const query = [0.9, 0.4, 0.1, 0.2];
      const results = await collect(db.getSimilarList(index, query, { minRelevance: -1, limit: 10 }));
      const expected = Object.entries(vectors)
        .map(([id, v]) => [id, cosineSimilarity(query, v)] as const)
        .sort((a, b) => b[1] - a[1]);
      expect(results.map(([r]) => r.id)).toEqual(expected.map(([id]) => id));
      results.forEach(([, score], i) => expect(Math.abs(score - expected[i]![1])).toBeLessThan(1e-3));
    });

    itVector('minRelevance keeps results >= it; limit caps the count' + noVectors, async () => {
      const { db, index } = await seed();
      const query = [1, 0, 0, 0];
      const kept = await collect(db.getSimilarList(index, query, { minRelevance: 0.7 }));
      expect(kept.map(([r]) => r.id)).toEqual(['x', 'xy']);
      const top1 = await collect(db.getSimilarList(index, query, { minRelevance: -1, limit: 1 }));
      expect(top1.map(([r]) => r.id)).toEqual(['x']);
      const all = await collect(db.getSimilarList(index, query, { minRelevance: -1, limit: 0 }));
      expect(all).toHaveLength(5);
    });
  });

  describe(`${name}: filters`, () => {
    // Seed data with values built to break naive query builders.
    const seedTags: Record<string, TagCollection> = {
      r1: { user: ['alice'], type: ['news'], [ReservedTags.documentId]: ['doc-1'] },
      r2: { user: ['bob'], type: ['news', 'sport'], [ReservedTags.documentId]: ['doc-1'] },
      r3: { user: ['alice', 'bob'], type: ['blog'], [ReservedTags.documentId]: ['doc-2'] },
      r4: { user: ["o'hara"], type: ['50%'], [ReservedTags.documentId]: ['doc-3'] },
      r5: { user: ['x; DROP TABLE t; --'], type: ['"quoted"'], [ReservedTags.documentId]: ['doc-3'] },
      r6: { user: ['Ünïcødé 🚀'], lang: ['日本語'], [ReservedTags.documentId]: ['doc-4'] },
      r7: { user: ['ALICE'], [ReservedTags.documentId]: ['doc-5'] },
      r8: { [ReservedTags.documentId]: ['doc-6'] },
    };
    const cases: Record<string, MemoryFilter[]> = {
      'single equality': [MemoryFilters.byTag('user', 'alice')],
      'values are case-sensitive': [MemoryFilters.byTag('user', 'ALICE')],
      'AND inside a filter': [MemoryFilters.byTag('user', 'bob').byTag('type', 'news')],
      'several values of one key all required': [MemoryFilters.byTag('user', 'alice').byTag('user', 'bob')],
      'OR across filters': [MemoryFilters.byTag('type', 'blog'), MemoryFilters.byTag('type', 'sport')],
      'NOT condition': [MemoryFilters.notTag('user', 'alice')],
      'AND with NOT': [MemoryFilters.byTag('type', 'news').notTag('user', 'alice')],
      'reserved tag': [MemoryFilters.byDocument('doc-1')],
      'value with quote': [MemoryFilters.byTag('user', "o'hara")],
      'value with percent': [MemoryFilters.byTag('type', '50%')],
      'value built to inject': [MemoryFilters.byTag('user', 'x; DROP TABLE t; --')],
      'value with double quotes': [MemoryFilters.byTag('type', '"quoted"')],
      'unicode values': [MemoryFilters.byTag('user', 'Ünïcødé 🚀'), MemoryFilters.byTag('lang', '日本語')],
      'OR of AND and NOT': [MemoryFilters.byDocument('doc-3').notTag('type', '50%'), MemoryFilters.byTag('user', 'ALICE')],
    };
    const expectedIds = (filters: MemoryFilter[]) =>
      Object.entries(seedTags)
        .filter(([, tags]) => matchesFilters(tags, filters))
        .map(([id]) => id)
        .sort();

    for (const [caseName, filters] of Object.entries(cases)) {
      it(`${caseName}: getList and getSimilarList return exactly the oracle's records`, async () => {
        const expected = expectedIds(filters);
        // A case that expects nothing or everything proves nothing about the filter.
        expect(expected.length, 'vacuous case').toBeGreaterThan(0);
        expect(expected.length, 'vacuous case').toBeLessThan(Object.keys(seedTags).length);
        const { db, index } = await fresh();
        let i = 0;
        for (const [id, tags] of Object.entries(seedTags)) await db.upsert(index, rec(id, [1, ++i, 0.5], tags, { text: 'shared words' }));
        const listed = (await collect(db.getList(index, { filters }))).map((r) => r.id).sort();
        expect(listed).toEqual(expected);
        const query = vectorSearch ? [1, 1, 1] : 'shared words';
        const similar = (await collect(db.getSimilarList(index, query, { filters, minRelevance: -1 }))).map(([r]) => r.id).sort();
        expect(similar).toEqual(expected);
      });
    }

    it('an empty filter list, or an empty filter, matches everything', async () => {
      const { db, index } = await fresh();
      for (const id of ['a', 'b']) await db.upsert(index, rec(id, [1, 0, 0], { k: [id] }));
      expect(await collect(db.getList(index, { filters: [] }))).toHaveLength(2);
      expect(await collect(db.getList(index, { filters: [new MemoryFilter(), MemoryFilters.byTag('k', 'a')] }))).toHaveLength(2);
    });
  });
}
