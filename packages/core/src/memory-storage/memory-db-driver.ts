import { InvalidInputError } from '../errors/km-error.js';
import type { MemoryDbCapabilities, RecordTagsUpdate } from '../contracts/memory-db.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import type { CheckedRecord } from './record-input.js';

/** What a similarity search asks a driver for. */
export interface DriverSearch {
  /** The query vector (checked, of the index's size); absent for stores without vector search. */
  vector?: Float32Array | number[];
  /** The query text; given to stores without vector search instead of a vector. */
  text?: string;
  /** Non-empty filters, OR across the list (an empty list matches everything). */
  filters: readonly MemoryFilter[];
  /** Most results wanted (already resolved from the caller's limit and `maxSearchResults`). */
  limit: number;
  /** Results below this cosine similarity are not wanted (the wrapper drops any that come back). */
  minRelevance: number;
  withEmbeddings: boolean;
  signal?: AbortSignal | undefined;
}

/** What a lexical (full-text) search asks a driver for. */
export interface DriverLexicalSearch {
  /** The query's words as the caller wrote them (not empty); the driver tokenises them its own way. */
  text: string;
  /** Non-empty filters, OR across the list (an empty list matches everything). */
  filters: readonly MemoryFilter[];
  /** Most results wanted. */
  limit: number;
  withEmbeddings: boolean;
  signal?: AbortSignal | undefined;
}

/** What a listing asks a driver for. */
export interface DriverList {
  /** Non-empty filters, OR across the list (an empty list matches everything). */
  filters: readonly MemoryFilter[];
  /** Most records wanted; undefined means all. */
  limit: number | undefined;
  withEmbeddings: boolean;
  signal?: AbortSignal | undefined;
}

/**
 * The part of a memory DB a connector writes: backend translation only. The {@link MemoryDb}
 * wrapper calls it with checked, normalised input and owns every rule of DESIGN §4: index names
 * are normalised and within {@link indexNameLimit}; records are valid, de-duplicated (last wins)
 * and of the index's vector size; the index exists (known from {@link vectorSize}, cached);
 * filters hold only conditions the capabilities allow; results are re-checked against
 * `minRelevance`, ranked and cut to the limit. A driver reports a missing index by throwing
 * `IndexNotFoundError` (reads then yield nothing, deletes do nothing, writes rethrow it).
 *
 * ```ts
 * class MyDriver implements MemoryDbDriver {
 *   readonly name = 'mydb';
 *   async vectorSize(index) { ... }            // undefined when missing
 *   async createIndex(index, vectorSize) { ... }
 *   async listIndexes() { ... }
 *   async deleteIndex(index) { ... }
 *   async upsertBatch(index, records) { ... } // or upsert(index, record): core loops it
 *   async search(index, query) { ... }          // [record, cosine][]
 *   async *list(index, query) { ... }           // id order
 *   async delete(index, id) { ... }
 * }
 * export const db = new MemoryDb(new MyDriver(), { embeddingGenerator });
 * ```
 */
export interface MemoryDbDriver {
  /** Short name used in errors and logs, e.g. `qdrant`. */
  readonly name: string;
  /** What the backend can do; a flag left out takes its default (see {@link DEFAULT_CAPABILITIES}). */
  readonly capabilities?: Partial<Omit<MemoryDbCapabilities, 'nativeBatch' | 'lexicalSearch'>>;
  /**
   * Longest normalised index name, in UTF-8 bytes, with the reason for the error message
   * (e.g. `PostgreSQL identifiers hold 63 bytes and the table prefix "km-" takes 3`).
   */
  readonly indexNameLimit?: { bytes: number; reason: string };
  /** Largest vector size the backend can index. */
  readonly maxVectorSize?: number;
  /** Most records per `upsertBatch` call; the wrapper splits larger batches. @default unlimited */
  readonly maxBatchSize?: number;

  /** The vector size of an index, or undefined when it does not exist (0 for stores without vectors). */
  vectorSize(index: string): Promise<number | undefined>;
  /**
   * Creates the index, or does nothing when it exists with this vector size; throws
   * `vector_size_mismatch` when it exists with another. When it loses a race with another
   * creator it may throw: the wrapper then reads {@link vectorSize} again.
   */
  createIndex(index: string, vectorSize: number): Promise<void>;
  /** Names of all indexes (normalised km names). */
  listIndexes(): Promise<string[]>;
  /** Deletes an index and its records; a no-op when missing. */
  deleteIndex(index: string): Promise<void>;
  /** Writes checked records (ids unique) into an existing index in one call. Give this or {@link upsert}. */
  upsertBatch?(index: string, records: CheckedRecord[]): Promise<void>;
  /** Writes one checked record into an existing index; the wrapper loops it for a backend without batches. */
  upsert?(index: string, record: CheckedRecord): Promise<void>;
  /** Records matching the filters, with their cosine similarity to the query; the wrapper ranks them. */
  search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>>;
  /**
   * Records matching the filters that contain words of the query, best first, with a lexical
   * score in [0, 1] (monotone in the backend's full-text score: BM25, `ts_rank`...). Giving it
   * declares the `lexicalSearch` capability; the wrapper fuses it with {@link search} for `hybrid`.
   */
  lexicalSearch?(index: string, query: DriverLexicalSearch): Promise<Array<[MemoryRecord, number]>>;
  /** Records matching the filters in id order (`compareRecordIds`), at most `limit`. */
  list(index: string, query: DriverList): AsyncIterable<MemoryRecord>;
  /** Deletes one record; a no-op when it is missing. */
  delete(index: string, id: string): Promise<void>;
  /**
   * Optional: replaces the tags of existing records (checked, ids unique) without touching their
   * vectors or payloads, skipping ids that do not exist. Giving it makes the wrapper offer
   * `updateTags`; without it core rewrites the records through {@link upsertBatch}.
   */
  updateTags?(index: string, updates: RecordTagsUpdate[]): Promise<void>;
  /** Releases connections or files. */
  close?(): Promise<void>;
}

/** Defaults of the capability flags a driver leaves out. */
export const DEFAULT_CAPABILITIES: Required<MemoryDbCapabilities> = Object.freeze({
  nativeBatch: false,
  negatedFilters: true,
  vectorSearch: true,
  createsIndexOnUpsert: false,
  zeroVectors: true,
  lexicalSearch: false,
});

/** A driver's capabilities with defaults applied; `nativeBatch` and `lexicalSearch` are whether it has `upsertBatch` and `lexicalSearch`. */
export function driverCapabilities(driver: MemoryDbDriver): Required<MemoryDbCapabilities> {
  return Object.freeze({
    ...DEFAULT_CAPABILITIES,
    ...driver.capabilities,
    nativeBatch: typeof driver.upsertBatch === 'function',
    lexicalSearch: typeof driver.lexicalSearch === 'function',
  });
}

/**
 * The {@link MemoryDbDriver.indexNameLimit} of a backend whose names hold `maxBytes` and to
 * which the driver adds `prefix`; refuses a prefix that leaves no room.
 *
 * ```ts
 * indexNameLimit('PostgreSQL identifiers', 63, 'km-'); // { bytes: 60, reason: 'PostgreSQL identifiers hold 63 bytes and the prefix "km-" takes 3' }
 * ```
 */
export function indexNameLimit(names: string, maxBytes: number, prefix: string): { bytes: number; reason: string } {
  const prefixBytes = Buffer.byteLength(prefix, 'utf8');
  if (prefixBytes >= maxBytes) {
    throw new InvalidInputError(
      'invalid_argument',
      `the prefix "${prefix}" leaves no room for index names: ${names} hold ${maxBytes} bytes`,
    );
  }
  return { bytes: maxBytes - prefixBytes, reason: `${names} hold ${maxBytes} bytes and the prefix "${prefix}" takes ${prefixBytes}` };
}
