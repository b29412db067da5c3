import type { ITextEmbeddingGenerator } from '@km/core';
import type { RedisMemoryDbOptions } from '../redis-config.js';

/**
 * How {@link RedisVectorStore} reaches Redis and lays out its collections: the connection
 * options of `RedisMemoryDb` (a `client` or a `url`, `connectRetries`, `logger`) and its index
 * options (`vectorAlgorithm`, `hnswM`, `hnswEfConstruction`, `hnswEfRuntime`, `batchSize`).
 */
export interface RedisVectorStoreOptions
  extends Pick<
    RedisMemoryDbOptions,
    'client' | 'url' | 'connectRetries' | 'logger' | 'batchSize' | 'vectorAlgorithm' | 'hnswM' | 'hnswEfConstruction' | 'hnswEfRuntime'
  > {
  /**
   * Prepended to every collection's search index (`{prefix}{collection}`) and to the keys of its
   * hashes (`{prefix}{collection}:{key}`). Letters, digits, `_ - . :`. Keep it apart from a
   * `RedisMemoryDb`'s `indexPrefix` (`km-`), so neither lists the other's indexes.
   * @default 'kmvs-'
   */
  collectionPrefix?: string;
  /** Embeds `embed` sources and text queries of every collection whose definition has no generator. */
  embeddingGenerator?: ITextEmbeddingGenerator;
}
