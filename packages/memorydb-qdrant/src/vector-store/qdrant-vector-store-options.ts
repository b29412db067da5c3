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

/**
 * How a {@link QdrantVectorStoreDriver} lays points out where a definition alone does not say:
 * the knobs that let it keep collections written by km 0.x's memory DB as they are (see
 * `QdrantMemoryDb`). Internal to the package: `QdrantVectorStore` uses none of them.
 *
 * ```ts
 * // KM's layout: one unnamed cosine vector, its length in `norm`, the payload as a JSON object.
 * new QdrantVectorStoreDriver(options, { unnamedVector: 'embedding', vectorNorms: { embedding: 'norm' }, jsonObjects: ['payload'], listsEveryCollection: true });
 * ```
 */
export interface QdrantPointLayout {
  /**
   * The storage name of the vector kept as the collection's one unnamed vector (a definition
   * with this vector has no other): created as `vectors: { size, distance }`, searched without
   * `using`, read with `with_vector: true`. @default none: every vector is named
   */
  readonly unnamedVector?: string;
  /**
   * Cosine vectors (by storage name) whose length is kept in a payload field (the value) instead
   * of a copy in `__km_vectors`: Qdrant stores them normalised and reads scale them back by it
   * (by 1 when the field is missing). @default none
   */
  readonly vectorNorms?: Readonly<Record<string, string>>;
  /**
   * String properties (by storage name) holding JSON text that the payload keeps as a native JSON
   * object: written parsed, read back as JSON text (a stored value that is not an object reads as
   * null). @default none
   */
  readonly jsonObjects?: readonly string[];
  /** `listCollections` gives every collection name under the prefix, not only valid km collection names (the layout picks). @default false */
  readonly listsEveryCollection?: boolean;
  /** Names the store in connection errors. @default 'QdrantVectorStore' */
  readonly what?: string;
}
