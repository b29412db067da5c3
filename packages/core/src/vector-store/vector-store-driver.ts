import type {
  DataPropertyType,
  DistanceFunction,
  KeyType,
  KeyValue,
  RecordDefinition,
  ResolvedDataProperty,
  ResolvedVectorProperty,
} from './record-definition-types.js';
import type { FilterNode, FilterOperator } from './vector-store-filter-types.js';

/**
 * A record as drivers see it: a plain object keyed by **storage names** (never property names),
 * holding the key, the data values (dates as `Date`, arrays as arrays, null for a missing
 * optional value) and the vectors as `Float32Array` (absent when not asked for or not stored).
 */
export type StorageRecord = Record<string, unknown>;

/** What a vector search asks a driver for. */
export interface DriverVectorQuery {
  /** The vector property searched (its distance function decides the score). */
  readonly vectorProperty: ResolvedVectorProperty;
  /** The query vector, of `vectorProperty.dimensions` finite numbers. */
  readonly vector: Float32Array;
  /** Most results wanted (the caller's `top + skip`); the wrapper skips and cuts. */
  readonly limit: number;
  /** Checked filter, or undefined for none. */
  readonly filter: FilterNode | undefined;
  /** Return the vectors of the records too. */
  readonly includeVectors: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** What a read by filter asks a driver for (see {@link VectorStoreDriver.query}). */
export interface DriverRecordQuery {
  /** Checked filter, or undefined for all records. */
  readonly filter: FilterNode | undefined;
  /** Sort keys, first decides; ties broken by the key ascending. Properties are data properties of type number, integer, date, string or boolean, or the key. */
  readonly orderBy: ReadonlyArray<{ readonly storageName: string; readonly descending: boolean }>;
  /** Most results wanted (the caller's `top + skip`); the wrapper skips. */
  readonly limit: number;
  readonly includeVectors: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** What a lexical (full-text) search asks a driver for (see {@link VectorStoreDriver.lexicalSearch}). */
export interface DriverLexicalQuery {
  /** The `fullText` string data property searched. */
  readonly property: ResolvedDataProperty;
  /** The query's words as the caller wrote them (not empty); the driver tokenises them its own way. */
  readonly text: string;
  /** Checked filter, or undefined for none. */
  readonly filter: FilterNode | undefined;
  /** Most results wanted. */
  readonly limit: number;
  /** Return the vectors of the records too. */
  readonly includeVectors: boolean;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The part of a typed vector store a connector writes: backend translation only. The
 * {@link VectorStore} wrapper and its collections own every rule: collection names checked
 * (`VectorStoreDriver.collectionNameLimit`), definitions checked (key type among
 * {@link keyTypes}, distances among {@link distances}), records checked against the definition
 * and mapped to storage names, keys de-duplicated (last wins), missing vectors embedded, filters
 * parsed, checked against the definition and handed over as a {@link FilterNode}, scores
 * re-ordered, `skip`, `top` and `minScore` applied. A driver reports a missing collection on
 * reads by returning nothing; writes to a missing collection throw `collection_not_found`.
 *
 * ```ts
 * class MyStoreDriver implements VectorStoreDriver {
 *   readonly name = 'mydb';
 *   readonly keyTypes = ['string'] as const;
 *   readonly distances = ['cosine', 'dot', 'euclidean'] as const;
 *   async listCollections() { ... }
 *   async collectionExists(name) { ... }
 *   async createCollection(name, definition) { ... }   // idempotent
 *   async deleteCollection(name) { ... }               // no-op when missing
 *   async upsert(name, definition, records) { ... }
 *   async get(name, definition, keys, includeVectors) { ... }
 *   async delete(name, definition, keys) { ... }
 *   async search(name, definition, query) { ... }      // [record, score][], best first
 * }
 * ```
 */
export interface VectorStoreDriver {
  /** Short name used in errors and logs, e.g. `postgres`. */
  readonly name: string;
  /** Key types the backend can hold. */
  readonly keyTypes: readonly KeyType[];
  /** Distance functions the backend can search with. */
  readonly distances: readonly DistanceFunction[];
  /** Data property types the backend can hold. @default every type */
  readonly dataTypes?: readonly DataPropertyType[];
  /** Filter operators the backend can translate. @default every operator; others throw `unsupported_filter` before the call */
  readonly filterOperators?: readonly FilterOperator[];
  /** Longest collection name in UTF-8 bytes, with the reason for the error message. */
  readonly collectionNameLimit?: { bytes: number; reason: string };
  /** Largest vector the backend can index. */
  readonly maxDimensions?: number;
  /** Most records per `upsert` call; the wrapper splits larger batches. @default unlimited */
  readonly maxBatchSize?: number;
  /**
   * Stores and searches all-zero vectors (their cosine similarity to anything reads as 0).
   * Without it, `MemoryDb` over this driver refuses zero vectors. @default false
   */
  readonly zeroVectors?: boolean;

  /** Names of the collections in the store (the wrapper keeps those that are valid collection names). */
  listCollections(): Promise<string[]>;
  collectionExists(name: string): Promise<boolean>;
  /**
   * Creates the collection for this definition, or does nothing when it exists. For an existing
   * table or collection the driver checks that the mapped columns or fields exist and throws
   * `invalid_argument` naming the first one that does not.
   */
  createCollection(name: string, definition: RecordDefinition): Promise<void>;
  /** Deletes the collection and its records; a no-op when missing. */
  deleteCollection(name: string): Promise<void>;
  /** Writes records (keys unique) into an existing collection. */
  upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void>;
  /** The records with these keys that exist, in any order. */
  get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]>;
  /** Deletes the records with these keys; missing keys are ignored. */
  delete(name: string, definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void>;
  /**
   * Records that match the filter and hold the searched vector, with their score in the
   * convention of the property's distance function, best first, at most `query.limit`.
   */
  search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>>;
  /**
   * Records matching the filter in the given order (missing values last), at most `query.limit`.
   * Optional: without it, `collection.query` throws `unsupported_operation`.
   */
  query?(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]>;
  /**
   * The records {@link query} returns (same filter, order, `limit`, vectors and signal), as pages
   * in order, each read from the backend when the caller asks for it: a listing of millions of
   * records is never held whole. Errors (`collection_not_found` on a collection deleted while
   * listing) surface during iteration; a caller that stops early ends the iteration (`return`).
   * Optional: `MemoryDb` lists with it when present, else with {@link query}.
   */
  queryPages?(name: string, definition: RecordDefinition, query: DriverRecordQuery): AsyncIterable<StorageRecord[]>;
  /**
   * Records that match the filter and hold words of the query in `query.property` (a `fullText`
   * string property), best first (ties by key), at most `query.limit`, with a lexical score in
   * [0, 1) monotone in the backend's full-text score. Optional: it declares lexical search; a
   * missing collection reads as no records.
   */
  lexicalSearch?(name: string, definition: RecordDefinition, query: DriverLexicalQuery): Promise<Array<[StorageRecord, number]>>;
  /**
   * The dimensions of the vector stored under `storageName` in the collection, read from the
   * backend (a column's type, a stored definition...); undefined when the collection or the
   * vector does not exist. Optional: `MemoryDb` over this driver needs it to open an index.
   */
  vectorDimensions?(name: string, storageName: string): Promise<number | undefined>;
  /** Releases connections or files. */
  close?(): Promise<void>;
}
