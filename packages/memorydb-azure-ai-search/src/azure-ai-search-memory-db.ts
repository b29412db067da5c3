import { MemoryDb, normalizeIndexName } from '@km/core';
import type { AzureAiSearchMemoryDbOptions } from './azure-ai-search-config.js';
import { AzureAiSearchMemoryDbDriver } from './azure-ai-search-memory-db-driver.js';

/**
 * Memory records in Azure AI Search (see {@link AzureAiSearchMemoryDbDriver}). Core's
 * `MemoryDb` owns the rules; the driver translates.
 *
 * ```ts
 * const db = new AzureAiSearchMemoryDb({ endpoint: 'https://my-search.search.windows.net', apiKey: process.env.AZURE_SEARCH_KEY });
 * const entra = new AzureAiSearchMemoryDb({ endpoint, credential: new DefaultAzureCredential() });
 * ```
 */
export class AzureAiSearchMemoryDb extends MemoryDb<AzureAiSearchMemoryDbDriver> {
  constructor(options: AzureAiSearchMemoryDbOptions) {
    super(new AzureAiSearchMemoryDbDriver(options), options);
  }

  /** The Azure AI Search index of a km index name. */
  indexName(index: string): string {
    return this.driver.indexName(normalizeIndexName(index));
  }
}
