import { InvalidInputError } from '@km/core';
import type { SqlQueryable } from '../sql-client.js';

/** An index of a table on one column, found by its access method. */
export interface ColumnIndex {
  /** The column's storage name. */
  readonly column: string;
  /** `hnsw`, `gin`… */
  readonly method: string;
  /** The index's name. */
  readonly name: string;
}

/**
 * The indexes of `table` (`"schema"."name"`) on each `[column, method]` wanted, whatever their
 * names (an earlier version, or the user, may have named them otherwise): an index counts when
 * its definition starts a key with the column, as in `USING hnsw (embedding …)`, `USING gin
 * (tags)` or `USING hnsw (((embedding)::halfvec(3072)) …)`.
 */
export async function indexesOn(db: SqlQueryable, table: string, wanted: ReadonlyArray<readonly [string, string]>): Promise<ColumnIndex[]> {
  if (wanted.length === 0) return [];
  const { rows } = await db.query<{ column: string; method: string; name: string }>(
    `SELECT w.col AS "column", w.method, ic.relname AS name
     FROM unnest($2::text[], $3::text[]) AS w(col, method)
     JOIN pg_index i ON i.indrelid = $1::regclass
     JOIN pg_class ic ON ic.oid = i.indexrelid
     JOIN pg_am am ON am.oid = ic.relam AND am.amname = w.method
     CROSS JOIN LATERAL (SELECT pg_get_indexdef(i.indexrelid) AS def, quote_ident(w.col) AS q) AS d
     WHERE strpos(d.def, '(' || d.q || ' ') > 0 OR strpos(d.def, '(' || d.q || ')') > 0 OR strpos(d.def, '((' || d.q || ')::') > 0
     ORDER BY ic.relname`,
    [table, wanted.map(([column]) => column), wanted.map(([, method]) => method)],
  );
  return rows;
}

/** The columns among `wanted` that already have an index of their method (see {@link indexesOn}). */
export async function indexedColumns(
  db: SqlQueryable,
  table: string,
  wanted: ReadonlyArray<readonly [string, string]>,
): Promise<Set<string>> {
  return new Set((await indexesOn(db, table, wanted)).map((i) => i.column));
}

/** A memory size PostgreSQL reads, such as `512MB` or `2GB`. */
const MEMORY_SIZE = /^[1-9][0-9]{0,6}(kB|MB|GB)$/;

/** Checks a `maintenanceWorkMem` option (spliced into `SET LOCAL`, which takes no parameters). */
export function checkMemorySize(value: string, what: string): string {
  if (typeof value !== 'string' || !MEMORY_SIZE.test(value)) {
    throw new InvalidInputError('invalid_argument', `${what} must be a size such as '512MB' or '2GB', got ${JSON.stringify(value)}`, {
      connector: 'postgres',
    });
  }
  return value;
}

/**
 * `maintenance_work_mem` for building an HNSW index over `rows` vectors of `dimensions`
 * (4 bytes each, 2 as halfvec) in memory: pgvector builds much faster while the graph fits
 * (about the vectors plus 2·m neighbour links of 8 bytes each, with room to spare), between
 * 64 MB and 4 GB.
 */
export function hnswBuildMemory(rows: number, dimensions: number, m: number): string {
  const bytesPerVector = (dimensions > 2000 ? 2 : 4) * dimensions + 16 * m + 64;
  const megabytes = Math.ceil((Math.max(rows, 0) * bytesPerVector * 1.5) / 2 ** 20);
  return `${Math.min(4096, Math.max(64, megabytes))}MB`;
}
