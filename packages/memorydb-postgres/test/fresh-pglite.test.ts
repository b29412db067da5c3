import { vector } from '@electric-sql/pglite-pgvector';
import { describe, expect, it } from 'vitest';
import { freshPglite } from '../src/testing.js';

describe('freshPglite', () => {
  it('gives each call an empty database of its own, with the extensions asked for available', async () => {
    const [a, b] = await Promise.all([freshPglite({ extensions: { vector } }), freshPglite({ extensions: { vector } })]);
    try {
      await a.exec("CREATE EXTENSION vector; CREATE TABLE only_in_a (v vector(2)); INSERT INTO only_in_a VALUES ('[1,2]')");
      expect((await a.query<{ n: number }>('SELECT count(*)::int AS n FROM only_in_a')).rows).toEqual([{ n: 1 }]);
      const tables = await b.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
      expect(tables.rows).toEqual([]);
      expect((await b.query('SELECT 1 FROM pg_extension WHERE extname = $1', ['vector'])).rows).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
