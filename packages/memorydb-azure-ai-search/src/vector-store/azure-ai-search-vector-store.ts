import { VectorStore } from '@km/collections';
import type { AzureAiSearchVectorStoreOptions } from './azure-ai-search-vector-store-options.js';
import { AzureAiSearchVectorStoreDriver } from './azure-ai-search-vector-store-driver.js';

/**
 * Typed vector-store collections in Azure AI Search: an index per collection with fields from
 * the definition, HNSW vector profiles with cosine, dotProduct or euclidean, OData filters as
 * pre-filters (see {@link AzureAiSearchVectorStoreDriver}). Core's `VectorStore` owns the rules;
 * the driver translates.
 *
 * ```ts
 * const store = new AzureAiSearchVectorStore({ endpoint: 'https://my-search.search.windows.net', apiKey: process.env.AZURE_SEARCH_KEY });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert({ hotelId: 'h1', name: 'Sea View', rating: 4.5, embedding: [0.1, 0.2, 0.3, 0.4] });
 * const near = await hotels.search([0.1, 0.2, 0.3, 0.4], { top: 3, filter: { rating: { gte: 4 } } });
 * ```
 */
export class AzureAiSearchVectorStore extends VectorStore {
  constructor(options: AzureAiSearchVectorStoreOptions) {
    super(
      new AzureAiSearchVectorStoreDriver(options),
      options.embeddingGenerator ? { embeddingGenerator: options.embeddingGenerator } : {},
    );
  }
}
