import { VectorStore } from '@km/collections';
import type { MongoDbVectorStoreOptions } from './mongodb-vector-store-options.js';
import { MongoDbVectorStoreDriver } from './mongodb-vector-store-driver.js';

/**
 * Typed vector-store collections in MongoDB with Atlas Vector Search (Atlas, the
 * `mongodb/mongodb-atlas-local` image, or 8.2+ Community with `mongot`): a collection and a
 * `vectorSearch` index per collection, `$vectorSearch` with filters as pre-filters, cosine, dot
 * and Euclidean distances (see {@link MongoDbVectorStoreDriver}). Core's `VectorStore` owns the
 * rules; the driver translates.
 *
 * ```ts
 * const store = new MongoDbVectorStore({ url: process.env.KM_MONGODB_URL, database: 'km' });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists(); // waits until the search index is queryable
 * await hotels.upsert({ hotelId: 'h1', name: 'Sea View', rating: 4.5, embedding: [0.1, 0.2, 0.3, 0.4] });
 * const near = await hotels.search([0.1, 0.2, 0.3, 0.4], { top: 3, filter: { rating: { gte: 4 } } });
 * ```
 */
export class MongoDbVectorStore extends VectorStore {
  constructor(options: MongoDbVectorStoreOptions) {
    super(new MongoDbVectorStoreDriver(options), options.embeddingGenerator ? { embeddingGenerator: options.embeddingGenerator } : {});
  }
}
