import { VectorStore } from '@km/collections';
import type { RedisVectorStoreOptions } from './redis-vector-store-options.js';
import { RedisVectorStoreDriver } from './redis-vector-store-driver.js';

/**
 * Typed vector-store collections in Redis with the Query Engine (Redis 8, or Redis Stack /
 * RediSearch 2.4+): a search index per collection over hashes, KNN with filters as pre-filters,
 * cosine, dot and Euclidean distances (see {@link RedisVectorStoreDriver}). Core's `VectorStore`
 * owns the rules; the driver translates.
 *
 * ```ts
 * const store = new RedisVectorStore({ url: 'redis://127.0.0.1:6379' });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert({ hotelId: 'h1', name: 'Sea View', rating: 4.5, embedding: [0.1, 0.2, 0.3, 0.4] });
 * const near = await hotels.search([0.1, 0.2, 0.3, 0.4], { top: 3, filter: { rating: { gte: 4 } } });
 * ```
 */
export class RedisVectorStore extends VectorStore {
  constructor(options: RedisVectorStoreOptions) {
    super(new RedisVectorStoreDriver(options), options.embeddingGenerator ? { embeddingGenerator: options.embeddingGenerator } : {});
  }
}
