import { VectorStore, type VectorStoreOptions } from '@km/collections';
import { QdrantVectorStoreDriver } from './qdrant-vector-store-driver.js';
import type { QdrantVectorStoreOptions } from './qdrant-vector-store-options.js';

/**
 * Typed vector-store collections in Qdrant (see {@link QdrantVectorStoreDriver}). Core's
 * `VectorStore` owns the rules; the driver translates.
 *
 * ```ts
 * const Hotel = defineRecord({
 *   key: 'hotelId',
 *   data: { name: { type: 'string' }, rating: { type: 'number', filterable: true } },
 *   vectors: { embedding: { dimensions: 4, distance: 'cosine' } },
 * });
 * const store = new QdrantVectorStore({ url: 'http://127.0.0.1:6333' });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert({ hotelId: 'h1', name: 'Sea View', rating: 4.5, embedding: [0.1, 0.2, 0.3, 0.4] });
 * const found = await hotels.search([0.1, 0.2, 0.3, 0.4], { top: 3, filter: { rating: { gte: 4 } } });
 * ```
 */
export class QdrantVectorStore extends VectorStore {
  constructor(options: QdrantVectorStoreOptions & VectorStoreOptions) {
    super(new QdrantVectorStoreDriver(options), options);
  }
}
