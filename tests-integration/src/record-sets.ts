import type pg from 'pg';
import { expect } from 'vitest';

/**
 * Asserts that a km memory table in PostgreSQL holds exactly one record per document of `ids`
 * (the one partition of a short document), each with the text of its own document
 * (`item {id}`), and no record of any other document.
 */
export async function expectOneRecordPerDocument(sql: pg.Pool, table: string, ids: readonly string[]): Promise<void> {
  const rows = (
    await sql.query<{ doc: string; n: number; texts: string[] }>(
      `SELECT substring(id from '^d=([^/]+)//') AS doc, count(*)::int AS n, array_agg(coalesce(payload->>'text', content)) AS texts FROM "${table}" GROUP BY 1 ORDER BY 1`,
    )
  ).rows;
  expect(rows.map((r) => r.doc)).toEqual(ids);
  for (const row of rows) {
    expect(row.n, `records of ${row.doc}`).toBe(1);
    expect(row.texts[0]).toContain(`item ${row.doc}`);
  }
}
