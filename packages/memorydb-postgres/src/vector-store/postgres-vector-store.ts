import { VectorStore } from '@km/collections';
import { PostgresVectorStoreDriver } from './postgres-vector-store-driver.js';
import type { PostgresVectorStoreOptions } from './postgres-vector-store-options.js';

/**
 * Typed vector-store collections in PostgreSQL with pgvector, on a `pg` pool or in process on
 * PGlite: one table per collection (see {@link PostgresVectorStoreDriver}). Core's `VectorStore`
 * owns the rules; the driver translates. The store's `driver` is this package's driver.
 *
 * ```ts
 * import { defineRecord } from '@km/core';
 * const Hotel = defineRecord({
 *   key: { name: 'hotelId', type: 'integer' },
 *   data: { name: { type: 'string', filterable: true }, rating: { type: 'number', filterable: true } },
 *   vectors: { embedding: { dimensions: 384 } },
 * });
 * const store = new PostgresVectorStore({ connectionString: process.env.DATABASE_URL });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert({ hotelId: 1, name: 'Sea View', rating: 4.5, embedding: vector });
 * const best = await hotels.search(vector, { top: 3, filter: { rating: { gte: 4 } } });
 * await store.close();
 * ```
 */
export class PostgresVectorStore extends VectorStore {
  declare readonly driver: PostgresVectorStoreDriver;

  constructor(options: PostgresVectorStoreOptions) {
    super(new PostgresVectorStoreDriver(options), { embeddingGenerator: options.embeddingGenerator });
  }
}
