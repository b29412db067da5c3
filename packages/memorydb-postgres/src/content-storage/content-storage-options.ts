import type { Logger } from '@km/core';
import type { PGliteLike, PgPoolLike } from '../sql-client.js';

/** Options of {@link PostgresContentStorage}. Give one of `pool`, `connectionString` or `pglite`. */
export interface PostgresContentStorageOptions {
  /** A ready `pg.Pool`, left open by `close()`. When it has no `error` listener the storage adds one that logs. */
  pool?: PgPoolLike;
  /** Connection string of a pool the storage creates (and ends on `close()`). */
  connectionString?: string;
  /** Most connections of the pool made from `connectionString`. @default 10 */
  maxConnections?: number;
  /** How long that pool waits for a connection, in ms, before the call fails as transient. @default 10000 */
  connectionTimeoutMs?: number;
  /** How long a query on that pool waits for its answer, in ms, before it fails as transient (`0`: no limit). @default 60000 */
  queryTimeoutMs?: number;
  /** An in-process PGlite instance (no extension needed). */
  pglite?: PGliteLike;
  /** Schema of the tables; it must exist. @default 'public' */
  schema?: string;
  /** Prefix of the table and sequence names: `{prefix}files`, `{prefix}file_chunks`, `{prefix}file_versions`. @default 'km_' */
  tablePrefix?: string;
  /** Bytes per stored chunk: what a write holds in memory, and the unit of range reads. @default 1 MiB */
  chunkBytes?: number;
  /** Where lost idle connections are reported. @default createConsoleLogger() */
  logger?: Logger;
}

export const DEFAULT_CONTENT_TABLE_PREFIX = 'km_';
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

/** `postgres://host:port/db` without credentials or parameters, or what was given instead of a URL. */
export function serverOf(options: PostgresContentStorageOptions): string {
  if (options.pglite) return 'PGlite';
  if (!options.connectionString) return 'PostgreSQL (pool given in)';
  try {
    const url = new URL(options.connectionString);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'PostgreSQL (connection string)';
  }
}
