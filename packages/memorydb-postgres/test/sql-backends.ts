import type { PGlite } from '@electric-sql/pglite';
import type { PostgresMemoryDbOptions } from '../src/index.js';
import { NO_REAL_POSTGRES, type RealDatabase } from './real-postgres.js';

/** A database a file's cases run on, and how they read it behind the connector's back. */
export interface SqlBackend {
  connection: Pick<PostgresMemoryDbOptions, 'pglite' | 'pool'>;
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs statements without parameters, several separated by semicolons. */
  exec(sql: string): Promise<unknown>;
}

/**
 * Where a file's cases run, as `[name, why skipped or false, open]`: PGlite in process (`pglite()`,
 * made by the file's `beforeAll`), and the real server of KM_TEST_POSTGRES_URL (`real`, the file's
 * `realDatabaseOfFile`), skipped with one line without it.
 */
export function sqlBackends(
  pglite: () => PGlite,
  real: () => Promise<RealDatabase>,
): Array<[string, string | false, () => Promise<SqlBackend>]> {
  return [
    [
      'PGlite in process',
      false,
      async () => {
        const db = pglite();
        return { connection: { pglite: db }, query: (sql, params) => db.query(sql, params), exec: (sql) => db.exec(sql) };
      },
    ],
    [
      'a real server, KM_TEST_POSTGRES_URL',
      NO_REAL_POSTGRES,
      async () => {
        const { pool } = await real();
        // pg's QueryResult has the rows PGlite's has; its row type is not generic per call.
        const query = <R>(sql: string, params?: unknown[]) => pool.query(sql, params) as unknown as Promise<{ rows: R[] }>;
        return { connection: { pool }, query, exec: (sql) => pool.query(sql) };
      },
    ],
  ];
}
