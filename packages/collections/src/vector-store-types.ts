import type { ITextEmbeddingGenerator, KeyValue, RecordDefinition, VectorStoreFilter } from '@km/core';

/** Options of a read by key. */
export interface GetRecordOptions {
  /** Return the vectors too. @default false */
  includeVectors?: boolean;
  signal?: AbortSignal;
}

/** Options of {@link IVectorStoreCollection.search}. */
export interface VectorSearchOptions<R> {
  /** Most results. @default 3 */
  top?: number;
  /** Results to pass over first (paging). @default 0 */
  skip?: number;
  filter?: VectorStoreFilter<R>;
  /** The vector property to search; required when the definition has several. */
  vectorProperty?: Extract<keyof R, string>;
  /** Return the vectors of the results. @default false */
  includeVectors?: boolean;
  /**
   * Drop results scoring worse than this: for `cosine` and `dot`, a score below it; for
   * `euclidean` (a distance), a score above it.
   */
  minScore?: number;
  signal?: AbortSignal;
}

/** Options of {@link IVectorStoreCollection.lexicalSearch}. */
export interface LexicalSearchOptions<R> {
  /** Most results. @default 3 */
  top?: number;
  /** Results to pass over first (paging). @default 0 */
  skip?: number;
  filter?: VectorStoreFilter<R>;
  /** The `fullText` string property to search; required when the definition has several. */
  property?: Extract<keyof R, string>;
  /** Return the vectors of the results. @default false */
  includeVectors?: boolean;
  /** Drop results whose lexical score (in [0, 1)) is below this. */
  minScore?: number;
  signal?: AbortSignal;
}

/** Options of {@link IVectorStoreCollection.query}: records by filter, not by similarity. */
export interface RecordQueryOptions<R> {
  filter?: VectorStoreFilter<R>;
  /** Sort keys, first decides (e.g. `[{ property: 'createdAt', descending: true }]`); ties by key ascending. @default by key */
  orderBy?: ReadonlyArray<{ property: Extract<keyof R, string>; descending?: boolean }>;
  /** Most results. @default 100 (at most 10000) */
  top?: number;
  /** @default 0 */
  skip?: number;
  includeVectors?: boolean;
  signal?: AbortSignal;
}

/** One search result. */
export interface VectorSearchResult<R> {
  readonly record: R;
  /** In the convention of the searched property's distance function (see `DistanceFunction`). */
  readonly score: number;
}

/**
 * A typed collection of records of one definition.
 *
 * ```ts
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * await hotels.upsert([{ hotelId: 'h1', name: 'Sea View', rating: 4.5, description: '…', tags: ['pool'] }]);
 * const top = await hotels.search('quiet room by the sea', { top: 3, filter: { rating: { gte: 4 } } });
 * ```
 */
export interface IVectorStoreCollection<R> {
  readonly name: string;
  readonly definition: RecordDefinition<R>;
  exists(): Promise<boolean>;
  /** Creates the collection when missing (for an existing table: checks its columns). */
  ensureExists(): Promise<void>;
  /** Deletes the collection and its records; a no-op when missing. */
  ensureDeleted(): Promise<void>;
  /** Inserts or replaces records by key; embeds missing vectors whose `embed` source is set. Returns the keys in order. */
  upsert(record: R, options?: { signal?: AbortSignal }): Promise<KeyValue>;
  upsert(records: readonly R[], options?: { signal?: AbortSignal }): Promise<KeyValue[]>;
  /** The record with this key, or undefined. */
  get(key: KeyValue, options?: GetRecordOptions): Promise<R | undefined>;
  /** The records with these keys that exist, in the order of the keys. */
  getMany(keys: readonly KeyValue[], options?: GetRecordOptions): Promise<R[]>;
  /** Deletes records by key; missing keys are ignored. */
  delete(key: KeyValue | readonly KeyValue[], options?: { signal?: AbortSignal }): Promise<void>;
  /** Records matching a filter, in a given order (needs a store whose driver has `query`, else `unsupported_operation`). */
  query(options?: RecordQueryOptions<R>): Promise<R[]>;
  /** Records nearest to a vector, or to a text embedded with the definition's generator, best first. */
  search(query: string | Float32Array | readonly number[], options?: VectorSearchOptions<R>): Promise<VectorSearchResult<R>[]>;
  /**
   * Records holding words of the text in a `fullText` property, best first, with the store's
   * lexical score in [0, 1) (needs a store whose driver has `lexicalSearch`, else `unsupported_operation`).
   */
  lexicalSearch(text: string, options?: LexicalSearchOptions<R>): Promise<VectorSearchResult<R>[]>;
}

/** Options of `getCollection`. */
export interface CollectionOptions {
  /** Overrides the definition's embedding generator for this collection. */
  embeddingGenerator?: ITextEmbeddingGenerator;
}

/** A store of typed collections over one backend. */
export interface IVectorStore {
  /** The backend's name, e.g. `postgres`. */
  readonly name: string;
  listCollections(): Promise<string[]>;
  collectionExists(name: string): Promise<boolean>;
  deleteCollection(name: string): Promise<void>;
  /** A handle on a collection; nothing is created until `ensureExists` (writes to a missing collection throw `collection_not_found`). */
  getCollection<R>(name: string, definition: RecordDefinition<R>, options?: CollectionOptions): IVectorStoreCollection<R>;
  close(): Promise<void>;
}
