import type { Logger, MemoryDbOptions } from '@km/core';
import type { PGliteLike, PgPoolLike } from './sql-client.js';

/** Column names of a memory table; map them to use an existing table (KM's custom schema). */
export interface PostgresColumns {
  /** @default 'id' */
  id: string;
  /** @default 'embedding' */
  embedding: string;
  /** `key:value` text[]. @default 'tags' */
  tags: string;
  /** @default 'payload' */
  payload: string;
  /** Partition text, for lexical search. @default 'content' */
  content: string;
}

/** Options of {@link PostgresMemoryDb}. Give one of `pool`, `connectionString` or `pglite`. */
export interface PostgresMemoryDbOptions extends MemoryDbOptions {
  /** A ready `pg.Pool` (not closed by the connector). When it has no `error` listener the connector adds one that logs (without any, `pg` ends the process when an idle connection dies). */
  pool?: PgPoolLike;
  /** Connection string for a pool the connector creates (and closes). */
  connectionString?: string;
  /** Most connections of the pool made from `connectionString`. @default 10 */
  maxConnections?: number;
  /** How long the pool made from `connectionString` waits for a connection, in ms, before the operation fails as transient. @default 10000 */
  connectionTimeoutMs?: number;
  /**
   * How long a query on the pool made from `connectionString` waits for the server's answer, in
   * ms, before it fails as transient and its connection is dropped (pg's `query_timeout`; a
   * half-open connection after a failover or network cut would otherwise hang the call). It
   * bounds every statement, so keep it above your slowest one; the server is not told to stop.
   * `0`: no limit. @default 60000
   */
  queryTimeoutMs?: number;
  /** An in-process PGlite instance loaded with `@electric-sql/pglite-pgvector`. */
  pglite?: PGliteLike;
  /** Schema of the tables. @default 'public' */
  schema?: string;
  /** Prefix of table names: index `docs` lives in table `km-docs`. @default 'km-' */
  tablePrefix?: string;
  /** Existing tables to use for some indexes (index name → table name), with `columns` mapping their columns. */
  tables?: Record<string, string>;
  /** Column names; defaults in {@link PostgresColumns}. */
  columns?: Partial<PostgresColumns>;
  /** Run `CREATE EXTENSION IF NOT EXISTS vector` on first use (under an advisory lock). @default true */
  createExtension?: boolean;
  /** HNSW build parameters. @default { m: 16, efConstruction: 64 } */
  hnsw?: { m?: number; efConstruction?: number };
  /** Create the HNSW index with a table (false: exact scans only). @default true */
  createVectorIndex?: boolean;
  /** `hnsw.ef_search` of searches (raised to the limit when smaller). @default 100 */
  efSearch?: number;
  /** Records per INSERT statement in batch upserts. @default 500 */
  batchSize?: number;
  /** Where lost connections and the pgvector < 0.8 recall caveat are reported. @default createConsoleLogger() */
  logger?: Logger;
}

export const DEFAULT_COLUMNS: PostgresColumns = { id: 'id', embedding: 'embedding', tags: 'tags', payload: 'payload', content: 'content' };
