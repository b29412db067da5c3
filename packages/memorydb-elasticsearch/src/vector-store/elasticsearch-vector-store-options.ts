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

/**
 * How a typed collection's fields are kept, beyond what a definition says; for layouts that must
 * match indexes written before (KM's memory indexes, see `ElasticsearchMemoryDb`). Every member is
 * off by default, so typed collections are unchanged.
 */
export interface ElasticsearchFieldStorage {
  /**
   * String properties (by storage name) that hold JSON text the typed API sees as a string but
   * Elasticsearch keeps as a native object: parsed when written, mapped
   * `{ type: 'object', enabled: false }` (kept in `_source`, not indexed), serialised again when
   * read. KM's `payload`.
   */
  readonly jsonFields?: readonly string[];
  /**
   * `fullText` string properties mapped as `text` alone (no `keyword`, so no 32,766-byte limit
   * and no filtering), searched by `lexicalSearch` on the field itself. KM's `content`.
   */
  readonly textFields?: readonly string[];
  /** Fields never read back from `_source` (read as null): copies a layout derives from other fields. KM's `content`. */
  readonly unreadFields?: readonly string[];
  /**
   * Index names are `{indexPrefix}{name}` as given (no `~` encoding of upper-case letters), refused
   * with `invalid_index_name` when Elasticsearch would refuse them, and listed as they are under
   * the prefix. KM's memory indexes (their names are already lower case).
   */
  readonly plainIndexNames?: boolean;
  /** The `_id` of a string key over 512 bytes (or starting with `sha256:`) is `sha256:` and its digest (`documentIdOf`). */
  readonly hashedIds?: boolean;
}

/** Options of {@link ElasticsearchVectorStoreDriver}: the store's, and how fields are kept (`storage`, for KM's memory layout). */
export type ElasticsearchVectorStoreDriverOptions = ElasticsearchVectorStoreOptions & { storage?: ElasticsearchFieldStorage };
