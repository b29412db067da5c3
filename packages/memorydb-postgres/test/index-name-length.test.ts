import type { PGlite } from '@electric-sql/pglite';
import { collect } from '@km/conformance';
import { isKmError } from '@km/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb } from '../src/index.js';
import { freshPglite } from './fresh-pglite.js';

let pglite: PGlite;
beforeAll(async () => {
  pglite = await freshPglite();
});
afterAll(async () => pglite.close());

const invalidName = (e: unknown) => isKmError(e, 'invalid_index_name') && /PostgreSQL identifiers hold 63 bytes/.test((e as Error).message);

describe('index names and PostgreSQL’s 63-byte identifiers', () => {
  it('maxIndexNameLength is 63 bytes minus the table prefix', () => {
    expect(new PostgresMemoryDb({ pglite }).maxIndexNameLength).toBe(60);
    expect(new PostgresMemoryDb({ pglite, tablePrefix: 'memories_' }).maxIndexNameLength).toBe(54);
    expect(() => new PostgresMemoryDb({ pglite, tablePrefix: 'p'.repeat(63) })).toThrow(/leaves no room/);
  });

  it('a name of exactly the limit works; one byte more is invalid_index_name on every operation, before the database sees it', async () => {
    const db = new PostgresMemoryDb({ pglite });
    const longest = 'n'.repeat(60);
    await db.createIndex(longest, 3);
    await db.upsert(longest, { id: 'a', vector: [1, 0, 0], tags: {}, payload: { text: 'probe' } });
    expect(await collect(db.getList(longest))).toHaveLength(1);

    const tooLong = 'n'.repeat(61);
    const record = { id: 'a', vector: [1, 0, 0], tags: {}, payload: { text: 'probe' } };
    await expect(db.createIndex(tooLong, 3)).rejects.toSatisfy(invalidName);
    await expect(db.upsert(tooLong, record)).rejects.toSatisfy(invalidName);
    await expect(collect(db.getList(tooLong))).rejects.toSatisfy(invalidName);
    await expect(collect(db.getSimilarList(tooLong, [1, 0, 0]))).rejects.toSatisfy(invalidName);
    // Counted on the normalised name: ' ' becomes '-', which does not change the length.
    await expect(db.createIndex(`${'n'.repeat(30)} ${'n'.repeat(30)}`, 3)).rejects.toSatisfy(invalidName);
  });
});
