import type { ITextEmbeddingGenerator } from '@km/core';
import type { MongoDbMemoryDbOptions } from '../mongodb-config.js';

/**
 * How {@link MongoDbVectorStore} reaches MongoDB (Atlas Vector Search, the
 * `mongodb/mongodb-atlas-local` image, or 8.2+ Community with `mongot`): the connection and
 * search options of `MongoDbMemoryDb`.
 */
export interface MongoDbVectorStoreOptions
  extends Pick<MongoDbMemoryDbOptions, 'client' | 'url' | 'database' | 'numCandidates' | 'indexReadyTimeoutMs' | 'batchSize'> {
  /**
   * Prepended to every collection name, so collections share a database with other data. Keep
   * it apart from a `MongoDbMemoryDb`'s `collectionPrefix` (`km-`), so neither lists the other's.
   * @default 'kmvs-'
   */
  collectionPrefix?: string;
  /** Embeds `embed` sources and text queries of every collection whose definition has no generator. */
  embeddingGenerator?: ITextEmbeddingGenerator;
}
