import type { PGlite } from '@electric-sql/pglite';
import { IndexNotFoundError, MemoryFilters, type MemoryRecord } from '@km/core';
import { collect } from '@km/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb, type PGliteLike } from '../src/index.js';
import { realDatabaseOfFile } from './real-postgres.js';
import { type SqlBackend, sqlBackends } from './sql-backends.js';
import { freshPglite } from './fresh-pglite.js';

// How PostgresMemoryDb replaces tags in place (`updateTags`), on PGlite and, with
// KM_TEST_POSTGRES_URL, on a real server: the tags column as upsert writes it, the other
// columns untouched, one statement per batch. The behaviour every memory DB shares is in the
// conformance suite (conformance.test.ts).
let pglite: PGlite;
beforeAll(async () => {
  pglite = await freshPglite();
});
afterAll(async () => pglite.close());

const real = realDatabaseOfFile('tag updates');
let indexes = 0;
const fresh = () => `retag-${++indexes}`;

const records = (n: number, tags: (i: number) => MemoryRecord['tags']): MemoryRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `d${i}//p0`,
    vector: [1, i + 1, 0],
    tags: tags(i),
    payload: { text: `harbour number ${i}`, url: `https://example.com/${i}` },
  }));

for (const [name, skip, open] of sqlBackends(() => pglite, real)) {
  describe.skipIf(skip)(`updateTags on ${name}`, () => {
    let backend: SqlBackend;
    beforeAll(async () => {
      backend = await open();
    });

    it('writes the tags column as upsert writes the same tags, and changes no other column', async () => {
      const db = new PostgresMemoryDb(backend.connection);
      const index = fresh();
      const tags = { __document_id: ['d1'], user: ['bob', 'carol'], empty: [''], bare: [null] };
      await db.createIndex(index, 3);
      await db.upsertBatch(index, [
        { id: 'upserted', vector: [1, 0, 0], tags, payload: { text: 'the harbour at dawn' } },
        { id: 'updated', vector: [0, 1, 0], tags: { user: ['alice'] }, payload: { text: 'the harbour at dusk' } },
      ]);
      const columns = async (id: string) =>
        (
          await backend.query<{ tags: string[]; payload: unknown; content: string; tsv: string; embedding: string }>(
            `SELECT tags, payload, content, content_tsv::text AS tsv, embedding::text AS embedding FROM "km-${index}" WHERE id = $1`,
            [id],
          )
        ).rows[0]!;
      const before = await columns('updated');
      await db.updateTags!(index, [{ id: 'updated', tags }]);
      const after = await columns('updated');
      expect(after.tags).toEqual((await columns('upserted')).tags);
      expect({ ...after, tags: undefined }).toEqual({ ...before, tags: undefined });
      expect((await collect(db.getSimilarList(index, 'dusk', { mode: 'lexical' }))).map(([r]) => r.id)).toEqual(['updated']);
      expect((await collect(db.getList(index, { filters: [MemoryFilters.byTag('bare', null)] }))).map((r) => r.id)).toEqual([
        'updated',
        'upserted',
      ]);
    });

    it('the driver throws IndexNotFoundError for a missing table; the memory DB makes it a no-op', async () => {
      const db = new PostgresMemoryDb(backend.connection);
      const index = fresh();
      await expect(db.driver.updateTags(index, [{ id: 'a', tags: {} }])).rejects.toBeInstanceOf(IndexNotFoundError);
      await expect(db.updateTags!(index, [{ id: 'a', tags: {} }])).resolves.toBeUndefined();
      expect(await db.getIndexes()).not.toContain(index);
    });
  });
}

describe('updateTags statements (PGlite)', () => {
  it('replaces the tags of a batch of 1,200 records in one UPDATE', async () => {
    const statements: string[] = [];
    const recorder: PGliteLike = {
      query: (text, params) => {
        statements.push(text);
        return pglite.query(text, params);
      },
      transaction: (fn) => pglite.transaction((tx) => fn({ query: (text, params) => (statements.push(text), tx.query(text, params)) })),
    };
    const db = new PostgresMemoryDb({ pglite: recorder });
    const index = fresh();
    await db.createIndex(index, 3);
    await db.upsertBatch(
      index,
      records(1200, () => ({ user: ['alice'] })),
    );
    statements.length = 0;
    await db.updateTags!(
      index,
      records(1200, (i) => ({ user: [`u${i % 3}`] })).map((r) => ({ id: r.id, tags: r.tags })),
    );
    expect(statements.filter((s) => /^\s*UPDATE\b/i.test(s))).toHaveLength(1);
    expect(await collect(db.getList(index, { filters: [MemoryFilters.byTag('user', 'alice')] }))).toEqual([]);
    expect(await collect(db.getList(index, { filters: [MemoryFilters.byTag('user', 'u1')] }))).toHaveLength(400);
  });
});
