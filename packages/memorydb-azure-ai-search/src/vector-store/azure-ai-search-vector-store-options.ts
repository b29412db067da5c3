import type { ITextEmbeddingGenerator } from '@km/core';
import type { AzureAiSearchMemoryDbOptions } from '../azure-ai-search-config.js';
import type { AzureIndexLayout } from './azure-index-layout.js';

/**
 * How {@link AzureAiSearchVectorStore} reaches Azure AI Search: the connection options of
 * `AzureAiSearchMemoryDb` (`endpoint`, `apiKey` or `credential`, `audience`, `maxRetries`,
 * `allowInsecureConnection`) and its index options (`hnsw`, `batchSize`).
 */
export interface AzureAiSearchVectorStoreOptions
  extends Pick<
    AzureAiSearchMemoryDbOptions,
    'endpoint' | 'apiKey' | 'credential' | 'audience' | 'maxRetries' | 'allowInsecureConnection' | 'hnsw' | 'batchSize'
  > {
  /**
   * Prepended to every collection's index name: lower-case letters, digits, `-`, `_`. Keep it
   * apart from an `AzureAiSearchMemoryDb`'s `indexPrefix` (`km-`), so neither lists the other's.
   * @default 'kmvs-'
   */
  collectionPrefix?: string;
  /** Embeds `embed` sources and text queries of every collection whose definition has no generator. */
  embeddingGenerator?: ITextEmbeddingGenerator;
  /** Internal: how indexes are laid out beyond the definitions (`AzureAiSearchMemoryDb` keeps km 0.x's indexes with it). @default none */
  layout?: AzureIndexLayout;
}
