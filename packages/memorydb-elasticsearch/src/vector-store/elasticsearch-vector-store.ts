import { VectorStore, type VectorStoreOptions } from '@km/collections';
import { ElasticsearchVectorStoreDriver } from './elasticsearch-vector-store-driver.js';
import type { ElasticsearchVectorStoreOptions } from './elasticsearch-vector-store-options.js';

/**
 * Typed vector-store collections in Elasticsearch 8.11+ (see
 * {@link ElasticsearchVectorStoreDriver}). Core's `VectorStore` owns the rules; the driver
 * translates.
 *
 * ```ts
 * const Hotel = defineRecord({
 *   key: 'hotelId',
 *   data: { name: { type: 'string' }, rating: { type: 'number', filterable: true } },
 *   vectors: { embedding: { dimensions: 4, distance: 'cosine' } },
 * });
 * const store = new ElasticsearchVectorStore({ node: 'http://127.0.0.1:9200' });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert({ hotelId: 'h1', name: 'Sea View', rating: 4.5, embedding: [0.1, 0.2, 0.3, 0.4] });
 * const found = await hotels.search([0.1, 0.2, 0.3, 0.4], { top: 3, filter: { rating: { gte: 4 } } });
 * await store.close();
 * ```
 */
export class ElasticsearchVectorStore extends VectorStore {
  constructor(options: ElasticsearchVectorStoreOptions & VectorStoreOptions) {
    super(new ElasticsearchVectorStoreDriver(options), options);
  }
}
