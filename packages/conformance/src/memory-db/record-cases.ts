import { MemoryFilters, isKmError, type MemoryRecord } from '@km/core';
import { describe, expect, it } from 'vitest';
import { collect, eventually } from '../util/async.js';
import { NO_VECTOR_SEARCH, record, upsertAll, type MemoryDbFixture } from './memory-db-fixture.js';
import type { ResolvedMemoryDbSuite } from './memory-db-suite-options.js';

/** Upsert, batch, get/list, delete, embeddings and payloads (DESIGN §4). */
export function recordCases(suite: ResolvedMemoryDbSuite, fresh: () => Promise<MemoryDbFixture>): void {
  const wait = (fn: () => Promise<void>) => eventually(fn, suite.visibilityTimeoutMs);
  const ready = async (f: MemoryDbFixture, size = 3) => {
    await f.db.createIndex(f.index, size);
    return f;
  };

  describe('records', () => {
    it('upsert is idempotent: the same id twice leaves one record with the latest content', async () => {
      const { db, index, capabilities } = await ready(await fresh());
      await db.upsert(index, record('a', [1, 0, 0], { v: ['1'] }, { text: 'first' }));
      await db.upsert(index, record('a', [0, 1, 0], { v: ['2'] }, { text: 'second' }));
      await wait(async () => {
        const all = await collect(db.getList(index, { withEmbeddings: true }));
        expect(all).toHaveLength(1);
        expect(all[0]!.payload).toEqual({ text: 'second' });
        expect(all[0]!.tags).toEqual({ v: ['2'] });
        if (capabilities.vectorSearch) expect(Array.from(all[0]!.vector).map((x) => Math.round(x * 1e4) / 1e4)).toEqual([0, 1, 0]);
        expect(await collect(db.getList(index, { filters: [MemoryFilters.byTag('v', '1')] }))).toEqual([]);
      });
    });

    it('batch upsert writes every record and returns the ids in order', async () => {
      const { db, index } = await ready(await fresh());
      const records = Array.from({ length: 120 }, (_, i) =>
        record(`r${String(i).padStart(3, '0')}`, [i + 1, 1, 0], {}, { text: `probe ${i}` }),
      );
      expect(await upsertAll(db, index, records)).toEqual(records.map((r) => r.id));
      await wait(async () => expect(await collect(db.getList(index))).toHaveLength(120));
    });

    it('getList returns records in id order; limit <= 0 means all', async () => {
      const { db, index } = await ready(await fresh());
      await upsertAll(
        db,
        index,
        ['c', 'a', 'b', 'd//p=1', 'd=x//p=2'].map((id) => record(id, [1, 1, 0], {}, { text: 'probe' })),
      );
      await wait(async () => {
        expect((await collect(db.getList(index, { limit: 0 }))).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd//p=1', 'd=x//p=2']);
        expect(await collect(db.getList(index, { limit: -1 }))).toHaveLength(5);
        expect((await collect(db.getList(index, { limit: 2 }))).map((r) => r.id)).toEqual(['a', 'b']);
      });
    });

    it('ids come back exactly as given', async () => {
      const { db, index } = await ready(await fresh());
      const ids = ['d=doc-1//p=abc', 'd=Doc.2//p=ÄÖ ü', `quote'"id`, 'd=x//p=%_*'];
      await upsertAll(
        db,
        index,
        ids.map((id) => record(id, [0, 1, 1], {}, { text: 'probe' })),
      );
      await wait(async () => expect((await collect(db.getList(index))).map((r) => r.id).sort()).toEqual([...ids].sort()));
    });

    it('delete removes one record; deleting a missing id is a no-op', async () => {
      const { db, index } = await ready(await fresh());
      await upsertAll(db, index, [record('a', [1, 0, 0], {}, { text: 'probe' }), record('b', [0, 1, 0], {}, { text: 'probe' })]);
      await db.delete(index, { id: 'a' });
      await db.delete(index, { id: 'missing' });
      await wait(async () => expect((await collect(db.getList(index))).map((r) => r.id)).toEqual(['b']));
    });

    it('withEmbeddings=false returns records without vectors, true with them', async (ctx) => {
      const { db, index, capabilities } = await ready(await fresh());
      ctx.skip(!capabilities.vectorSearch, NO_VECTOR_SEARCH);
      await db.upsert(index, record('a', [0.5, -0.25, 2]));
      await wait(async () => {
        const [without] = await collect(db.getList(index, { withEmbeddings: false }));
        expect(without!.vector.length).toBe(0);
        const [withVector] = await collect(db.getList(index, { withEmbeddings: true }));
        Array.from(withVector!.vector).forEach((x, i) => expect(x).toBeCloseTo([0.5, -0.25, 2][i]!, 4));
        const similar = await collect(db.getSimilarList(index, [0.5, -0.25, 2], { withEmbeddings: false }));
        expect(similar[0]![0].vector.length).toBe(0);
      });
    });

    it('payload round-trips JSON values', async () => {
      const { db, index } = await ready(await fresh());
      const payload = {
        text: 'héllo "world" \n ✓ \\ %',
        n: 1.5,
        neg: -3,
        b: false,
        nul: null,
        arr: [1, 'two', { three: [3] }],
        nested: { a: { b: 'c' } },
      };
      await db.upsert(index, record('a', [1, 0, 0], {}, payload));
      await wait(async () => expect((await collect(db.getList(index)))[0]!.payload).toEqual(payload));
    });

    it('tags round-trip: several values per key, case-sensitive keys and values', async () => {
      const { db, index } = await ready(await fresh());
      const tags = { user: ['alice', 'Bob'], User: ['x'], __document_id: ['doc-1'], empty: [''] };
      await db.upsert(index, record('a', [1, 0, 0], tags, { text: 'probe' }));
      await wait(async () => {
        const [r] = await collect(db.getList(index));
        expect(Object.fromEntries(Object.entries(r!.tags).map(([k, v]) => [k, [...v].sort()]))).toEqual({
          user: ['Bob', 'alice'],
          User: ['x'],
          __document_id: ['doc-1'],
          empty: [''],
        });
      });
    });

    it('a batch with an invalid record writes nothing', async () => {
      const { db, index } = await ready(await fresh());
      const bad = [record('ok', [1, 0, 0], {}, { text: 'probe' }), record('', [1, 0, 0], {}, { text: 'probe' })];
      // Without a native batch, core loops upsert: only the single bad record can be refused.
      const attempt = db.upsertBatch ? db.upsertBatch(index, bad) : db.upsert(index, bad[1]!);
      await expect(attempt).rejects.toSatisfy((e: unknown) => isKmError(e));
      await wait(async () => expect(await collect(db.getList(index))).toEqual([]));
    });

    it('refuses NUL and lone surrogates in payload text and tags with a typed error, writing nothing', async () => {
      const { db, index } = await ready(await fresh());
      const hostile: Array<[MemoryRecord, 'invalid_argument' | 'invalid_tag']> = [
        [record('nul-text', [1, 0, 0], {}, { text: 'before\u0000after' }), 'invalid_argument'],
        [record('lone-text', [1, 0, 0], {}, { text: 'half \ud800 pair' }), 'invalid_argument'],
        [record('nul-tag', [1, 0, 0], { user: ['al\u0000ice'] }, { text: 'probe' }), 'invalid_tag'],
        [record('lone-tag', [1, 0, 0], { ['k\udc00']: ['v'] }, { text: 'probe' }), 'invalid_tag'],
      ];
      for (const [bad, code] of hostile) {
        await expect(db.upsert(index, bad), bad.id).rejects.toSatisfy((e: unknown) => isKmError(e, code));
      }
      if (db.upsertBatch) {
        const batch = [record('fine', [1, 0, 0], {}, { text: 'probe' }), hostile[0]![0]];
        await expect(db.upsertBatch(index, batch)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
      }
      await wait(async () => expect(await collect(db.getList(index))).toEqual([]));
    });

    it('refuses a vector of the wrong size with a typed error', async (ctx) => {
      const { db, index, capabilities } = await ready(await fresh());
      ctx.skip(!capabilities.vectorSearch, NO_VECTOR_SEARCH);
      await expect(db.upsert(index, record('a', [1, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    });
  });
}
