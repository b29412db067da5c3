import type { ElasticsearchMemoryDbOptions } from '../elasticsearch-config.js';

/**
 * How {@link ElasticsearchVectorStore} reaches Elasticsearch: the connection fields of the
 * memory DB's options (`client`, `node`, `cloudId`, `apiKey`, `username`/`password`, TLS,
 * timeouts, retries), the write visibility (`refresh`, default `wait_for`), the records per bulk
 * request, kNN candidates, HNSW settings and shards of new indexes, and `indexPrefix`, which here
 * defaults to `''` so a collection can be an index that already exists.
 *
 * ```ts
 * const options: ElasticsearchVectorStoreOptions = { node: 'http://127.0.0.1:9200', indexPrefix: 'app-' };
 * ```
 */
export type ElasticsearchVectorStoreOptions = Pick<
  ElasticsearchMemoryDbOptions,
  | 'client'
  | 'node'
  | 'cloudId'
  | 'apiKey'
  | 'username'
  | 'password'
  | 'caFingerprint'
  | 'ca'
  | 'requestTimeoutMs'
  | 'maxRetries'
  | 'indexPrefix'
  | 'refresh'
  | 'batchSize'
  | 'numCandidates'
  | 'hnsw'
  | 'numberOfShards'
  | 'numberOfReplicas'
>;
