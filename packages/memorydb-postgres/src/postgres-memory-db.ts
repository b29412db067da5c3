import { InvalidInputError, MemoryDb } from '@km/core';
import { KmRecordLayout, VectorStoreMemoryDbDriver } from '@km/core/connector';
import { MAX_IDENTIFIER_BYTES } from './identifiers.js';
import { DEFAULT_COLUMNS, type PostgresMemoryDbOptions } from './postgres-config.js';
import { PostgresVectorStoreDriver } from './vector-store/postgres-vector-store-driver.js';

/**
 * Memory records in PostgreSQL with pgvector, on a `pg` pool or in process on PGlite: core's
 * `MemoryDb` over the package's one driver, {@link PostgresVectorStoreDriver}, through KM's
 * record layout. One table per index (`km-<index>`, or the table `tables` maps it to): `id`
 * text key, `embedding vector(n)` with an HNSW cosine index, `tags` (`key:value` text[], GIN),
 * `payload` jsonb, `content` (the partition text) and its generated, GIN-indexed tsvector
 * `content_tsv`; relevance = 1 − cosine distance, lexical relevance BM25-like in [0, 1).
 * Tables written by earlier versions open unchanged.
 *
 * ```ts
 * import pg from 'pg';
 * const db = new PostgresMemoryDb({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * // or, embedded:
 * const db2 = new PostgresMemoryDb({ pglite: await PGlite.create({ extensions: { vector } }) });
 * ```
 */
export class PostgresMemoryDb extends MemoryDb<VectorStoreMemoryDbDriver> {
  constructor(options: PostgresMemoryDbOptions) {
    super(postgresMemoryDbDriver(options), options);
  }
}

/** The driver of {@link PostgresMemoryDb}: its options as a typed driver and KM's record layout on its tables. */
function postgresMemoryDbDriver(options: PostgresMemoryDbOptions): VectorStoreMemoryDbDriver {
  if (!options.pool && !options.connectionString && !options.pglite) {
    throw new InvalidInputError('invalid_argument', 'give PostgresMemoryDb a pool, a connectionString or a pglite instance', {
      connector: 'postgres',
    });
  }
  const { textSearch, ...storageNames } = { ...DEFAULT_COLUMNS, ...options.columns };
  const layout = new KmRecordLayout({
    prefix: options.tablePrefix ?? 'km-',
    ...(options.tables && { collections: options.tables }),
    storageNames,
    collectionNames: { maxBytes: MAX_IDENTIFIER_BYTES, what: 'PostgreSQL identifiers' },
  });
  const store = new PostgresVectorStoreDriver({
    ...options,
    unlistedTablePrefix: false,
    // As before: a memory DB call tries once; its callers (the pipeline's steps) own the retry budget.
    retry: { maxRetries: 0 },
    fullTextColumns: { [storageNames.content]: textSearch },
    columnTypes: { [storageNames.payload]: 'jsonb' },
  });
  return new VectorStoreMemoryDbDriver(store, layout);
}
