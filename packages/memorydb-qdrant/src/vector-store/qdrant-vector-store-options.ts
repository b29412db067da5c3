import type { QdrantMemoryDbOptions } from '../qdrant-config.js';

/**
 * How {@link QdrantVectorStore} reaches Qdrant: the connection fields of the memory DB's options
 * (`client`, `url`, `host`, `port`, `https`, `apiKey`, `timeoutMs`), the prefix of the
 * collections it owns, the points per upsert request and the search parameters.
 *
 * ```ts
 * const options: QdrantVectorStoreOptions = { url: 'http://127.0.0.1:6333', collectionPrefix: 'app-' };
 * ```
 */
export type QdrantVectorStoreOptions = Pick<
  QdrantMemoryDbOptions,
  'client' | 'url' | 'host' | 'port' | 'https' | 'apiKey' | 'timeoutMs' | 'collectionPrefix' | 'batchSize' | 'hnswEf' | 'exactSearch'
>;
