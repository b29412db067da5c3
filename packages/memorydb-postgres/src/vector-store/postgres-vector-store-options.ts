import type { ConnectorRetryOptions } from '@km/core/connector';
import { InvalidInputError, type ITextEmbeddingGenerator } from '@km/core';
import type { HnswSettings } from './collection-statements.js';
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
  | 'iterativeScan'
  | 'lexicalCandidates'
  | 'batchSize'
  | 'logger'
  | 'textSearchConfig'
  | 'upgradeTablesOnSearch'
>;

/**
 * Options of {@link PostgresVectorStore}: give one of `pool`, `connectionString` or `pglite`.
 * The connection options are the memory DB's (`pool`, `connectionString`, `maxConnections`,
 * `connectionTimeoutMs`, `queryTimeoutMs`, `pglite`, `createExtension`, `logger`), and so are
 * `schema`, `hnsw`, `createVectorIndex`, `efSearch`, `iterativeScan`, `lexicalCandidates`, `batchSize`, `textSearchConfig` (of the
 * full-text columns of `fullText` properties) and `upgradeTablesOnSearch`.
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
   * The generated `tsvector` column of a `fullText` property, by the property's storage name;
   * `lexicalSearch` reads it, `createCollection` adds it (with a GIN index) to a new table.
   * @default `<storage name>_tsv`
   */
  fullTextColumns?: Readonly<Record<string, string>>;
  /**
   * SQL type of a new table's column, by storage name, where the property type's default does
   * not suit: one of the types an existing column of that property may have, e.g.
   * `{ payload: 'jsonb' }` for a string property holding JSON. @default by property type (see the README)
   */
  columnTypes?: Readonly<Record<string, string>>;
  /**
   * Retries of a call that failed on connection trouble (a dropped connection, a restart, a
   * failover); every call of the driver is idempotent. `{ maxRetries: 0 }` tries once.
   * @default { maxRetries: 2, initialDelayMs: 100, maxDelayMs: 2000 }
   */
  retry?: ConnectorRetryOptions;
}

/** The default of {@link PostgresVectorStoreOptions.retry}. */
export const DEFAULT_VECTOR_STORE_RETRY = Object.freeze({ maxRetries: 2, initialDelayMs: 100, maxDelayMs: 2000 });

/**
 * The `hnsw` option with its defaults (m 16, ef_construction 64), checked against pgvector's
 * limits (m 2–100, ef_construction 4–1000 and at least 2·m), and the `lexicalCandidates`,
 * `efSearch` and `iterativeScan` options: `invalid_argument` naming the first that does not fit.
 */
export function checkHnswSettings(
  options: Pick<PostgresVectorStoreOptions, 'hnsw' | 'lexicalCandidates' | 'efSearch' | 'iterativeScan'>,
): HnswSettings {
  const m = options.hnsw?.m ?? 16;
  const efConstruction = options.hnsw?.efConstruction ?? 64;
  const fail = (message: string) => {
    throw new InvalidInputError('invalid_argument', message, { connector: 'postgres' });
  };
  if (!Number.isInteger(m) || m < 2 || m > 100) fail(`hnsw.m must be an integer from 2 to 100, got ${m}`);
  if (!Number.isInteger(efConstruction) || efConstruction < 4 || efConstruction > 1000 || efConstruction < 2 * m) {
    fail(`hnsw.efConstruction must be an integer from 4 to 1000 and at least 2 × m (${2 * m}), got ${efConstruction}`);
  }
  const { lexicalCandidates, efSearch, iterativeScan } = options;
  if (
    lexicalCandidates !== undefined &&
    !((Number.isInteger(lexicalCandidates) && lexicalCandidates >= 1) || lexicalCandidates === Number.POSITIVE_INFINITY)
  )
    fail(`lexicalCandidates must be a whole number of rows (1 or more) or Infinity, got ${lexicalCandidates}`);
  if (efSearch !== undefined && !(Number.isFinite(efSearch) && efSearch >= 1))
    fail(`efSearch must be a number from 1 to 1000, got ${efSearch}`);
  if (iterativeScan !== undefined && !['strict_order', 'relaxed_order', 'off'].includes(iterativeScan)) {
    fail(`iterativeScan must be strict_order, relaxed_order or off, got ${JSON.stringify(iterativeScan)}`);
  }
  return { m, efConstruction };
}
