import type { PGlite } from '@electric-sql/pglite';
import { MemoryFilters, isKmError } from '@km/core';
import { collect } from '@km/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb } from '../src/index.js';
import { freshPglite } from './fresh-pglite.js';

let db: PGlite;
beforeAll(async () => {
  db = await freshPglite();
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
});
afterAll(async () => db.close());

describe('PostgresMemoryDb with existing tables and columns', () => {
  it('reads and writes a table mapped by name and column names', async () => {
    await db.exec(`CREATE SCHEMA legacy;
      CREATE TABLE legacy.memories (key TEXT PRIMARY KEY, vec vector(3) NOT NULL, labels TEXT[] NOT NULL DEFAULT '{}',
        data JSONB NOT NULL DEFAULT '{}', body TEXT NOT NULL DEFAULT '');
      INSERT INTO legacy.memories VALUES ('old-1', '[1,0,0]', ARRAY['team:ops'], '{"text":"from before"}', 'from before');`);
    const memory = new PostgresMemoryDb({
      pglite: db,
      schema: 'legacy',
      tables: { archive: 'memories' },
      columns: { id: 'key', embedding: 'vec', tags: 'labels', payload: 'data', content: 'body' },
    });
    expect(await memory.getIndexes()).toEqual(['archive']);
    await memory.upsert('archive', { id: 'new-1', vector: [0, 1, 0], tags: { team: ['dev'] }, payload: { text: 'written by km' } });
    const listed = await collect(memory.getList('archive'));
    expect(listed.map((r) => [r.id, r.payload.text])).toEqual([
      ['new-1', 'written by km'],
      ['old-1', 'from before'],
    ]);
    const hits = await collect(memory.getSimilarList('archive', [1, 0.1, 0], { filters: [MemoryFilters.byTag('team', 'ops')] }));
    expect(hits.map(([r]) => r.id)).toEqual(['old-1']);
    const { rows } = await db.query<{ body: string }>(`SELECT body FROM legacy.memories WHERE key = 'new-1'`);
    expect(rows[0]!.body).toBe('written by km');
  });

  it('createIndex with another vector size than the existing table fails with vector_size_mismatch', async () => {
    const memory = new PostgresMemoryDb({ pglite: db });
    await memory.createIndex('sized', 4);
    await expect(memory.createIndex('sized', 5)).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
  });

  it('refuses index names that would exceed PostgreSQL identifiers', async () => {
    const memory = new PostgresMemoryDb({ pglite: db });
    await expect(memory.createIndex('x'.repeat(100), 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
  });

  it('configuration without a database is refused', () => {
    expect(() => new PostgresMemoryDb({})).toThrow(/pool, a connectionString or a pglite/);
  });
});
