import { InvalidInputError, MemoryDb, normalizeIndexName } from '@km/core';
import { KmRecordLayout, VectorStoreMemoryDbDriver } from '@km/core/connector';
import type { AzureAiSearchMemoryDbOptions } from './azure-ai-search-config.js';
import { azureIndexName, checkIndexPrefix, MAX_AZURE_INDEX_NAME_LENGTH } from './index-names.js';
import { AzureAiSearchVectorStoreDriver } from './vector-store/azure-ai-search-vector-store-driver.js';
import { KM_INDEX_LAYOUT } from './vector-store/azure-index-layout.js';

/**
 * Memory records in Azure AI Search: core's `MemoryDb` over the package's one driver,
 * {@link AzureAiSearchVectorStoreDriver}, through KM's record layout. One search index per km
 * index (`{indexPrefix}{name}`): `id` the key (the km id in an order-keeping base32hex encoding),
 * `recordId` the id as given, `tags` (`key:value`, filterable), `payload` (JSON text), `content`
 * (the partition text, searchable, not returned) and `embedding` (HNSW, cosine). Relevance is
 * the cosine (converted back from the service's `1 / (2 - cos)`); lexical search is BM25 on
 * `content`, mapped to [0, 1), so `hybrid` works too. Indexes written by earlier versions open
 * unchanged.
 *
 * ```ts
 * const db = new AzureAiSearchMemoryDb({ endpoint: 'https://my-search.search.windows.net', apiKey: process.env.AZURE_SEARCH_KEY });
 * const entra = new AzureAiSearchMemoryDb({ endpoint, credential: new DefaultAzureCredential() });
 * ```
 */
export class AzureAiSearchMemoryDb extends MemoryDb<VectorStoreMemoryDbDriver> {
  private readonly prefix: string;

  constructor(options: AzureAiSearchMemoryDbOptions) {
    const prefix = checkIndexPrefix(options?.indexPrefix ?? 'km-');
    super(azureAiSearchMemoryDbDriver(options, prefix), options);
    this.prefix = prefix;
  }

  /** The Azure AI Search index of a km index name. */
  indexName(index: string): string {
    return azureIndexName(this.prefix, normalizeIndexName(index));
  }
}

/** The driver of {@link AzureAiSearchMemoryDb}: its options as a typed driver, and KM's record layout on km 0.x's indexes. */
function azureAiSearchMemoryDbDriver(options: AzureAiSearchMemoryDbOptions, prefix: string): VectorStoreMemoryDbDriver {
  if (typeof options?.endpoint !== 'string' || !/^https?:\/\//.test(options.endpoint)) {
    throw new InvalidInputError('invalid_argument', 'give AzureAiSearchMemoryDb the endpoint of the service (https://...)', {
      connector: 'azureaisearch',
    });
  }
  const { indexPrefix: _, ...connection } = options;
  // The typed driver sees whole index names (prefix included): the layout owns the prefix, so it lists exactly km's indexes.
  const store = new AzureAiSearchVectorStoreDriver({ ...connection, collectionPrefix: '', layout: KM_INDEX_LAYOUT });
  const layout = new KmRecordLayout({
    prefix,
    collectionNames: { maxBytes: MAX_AZURE_INDEX_NAME_LENGTH, what: 'Azure AI Search index names' },
  });
  return new VectorStoreMemoryDbDriver(store, layout);
}
