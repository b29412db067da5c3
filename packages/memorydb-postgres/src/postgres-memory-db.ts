import { MemoryDb } from '@km/core';
import type { PostgresMemoryDbOptions } from './postgres-config.js';
import { PostgresMemoryDbDriver } from './postgres-memory-db-driver.js';

/**
 * Memory records in PostgreSQL with pgvector (see {@link PostgresMemoryDbDriver}), on a `pg`
 * pool or in process on PGlite. Core's `MemoryDb` owns the rules; the driver translates.
 *
 * ```ts
 * import pg from 'pg';
 * const db = new PostgresMemoryDb({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * // or, embedded:
 * const db2 = new PostgresMemoryDb({ pglite: await PGlite.create({ extensions: { vector } }) });
 * ```
 */
export class PostgresMemoryDb extends MemoryDb<PostgresMemoryDbDriver> {
  constructor(options: PostgresMemoryDbOptions) {
    super(new PostgresMemoryDbDriver(options), options);
  }
}
