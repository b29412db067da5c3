import type { ConnectorRetryOptions } from '@km/core/connector';
import type { ITextEmbeddingGenerator } from '@km/core';
import type { PostgresMemoryDbOptions } from '../postgres-config.js';

/** The connection and index options shared with {@link PostgresMemoryDbOptions} (same meaning, same defaults). */
type SharedOptions = Pick<
  PostgresMemoryDbOptions,
  | 'pool'
  | 'connectionString'
  | 'maxConnections'
  | 'connectionTimeoutMs'
  | 'queryTimeoutMs'
  | 'pglite'
  | 'schema'
  | 'createExtension'
  | 'hnsw'
  | 'createVectorIndex'
  | 'efSearch'
  | 'batchSize'
  | 'logger'
>;

/**
 * Options of {@link PostgresVectorStore}: give one of `pool`, `connectionString` or `pglite`.
 * The connection options are the memory DB's (`pool`, `connectionString`, `maxConnections`,
 * `connectionTimeoutMs`, `queryTimeoutMs`, `pglite`, `createExtension`, `logger`), and so are
 * `schema`, `hnsw`, `createVectorIndex`, `efSearch` and `batchSize`.
 *
 * ```ts
 * const store = new PostgresVectorStore({ connectionString: process.env.DATABASE_URL, schema: 'app' });
 * ```
 */
export interface PostgresVectorStoreOptions extends SharedOptions {
  /** Embeds the `embed` sources and text queries of collections whose definition has no generator. */
  embeddingGenerator?: ITextEmbeddingGenerator | undefined;
  /**
   * Tables whose names start with this are not listed by `listCollections` (they are the memory
   * DB's, `km-docs` for index `docs`); `false` lists every table with a vector column. @default 'km-'
   */
  unlistedTablePrefix?: string | false;
  /**
   * Retries of a call that failed on connection trouble (a dropped connection, a restart, a
   * failover); every call of the driver is idempotent. `{ maxRetries: 0 }` tries once.
   * @default { maxRetries: 2, initialDelayMs: 100, maxDelayMs: 2000 }
   */
  retry?: ConnectorRetryOptions;
}

/** The default of {@link PostgresVectorStoreOptions.retry}. */
export const DEFAULT_VECTOR_STORE_RETRY = Object.freeze({ maxRetries: 2, initialDelayMs: 100, maxDelayMs: 2000 });
