import type { TagCollection } from '../models/tag-collection.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';

/**
 * How a search matches records: `vector` by embeddings (cosine), `lexical` by words (BM25-style
 * full-text ranking of the partition text), `hybrid` both, fused (see {@link HybridFusion}).
 */
export type SearchMode = 'vector' | 'lexical' | 'hybrid';

/** Every {@link SearchMode}, for validation and option lists. */
export const SEARCH_MODES: readonly SearchMode[] = Object.freeze(['vector', 'lexical', 'hybrid']);

/** How `hybrid` search fuses its vector and lexical rankings (filters apply to both sides before fusion). */
export interface HybridFusion {
  /**
   * `rrf`: reciprocal rank fusion, `Σ weight / (rrfK + rank)` over both rankings; `weighted`:
   * `vectorWeight · cosine + (1 − vectorWeight) · lexical score` for every candidate of either
   * side. Weighted is the default: it beat RRF at every weight on every evaluation set
   * (docs/adr/0003-answers-and-fusion.md). @default 'weighted'
   */
  method?: 'rrf' | 'weighted';
  /**
   * Weight of the vector side, in [0, 1] (the lexical side gets the rest). 0.15 was fitted with the
   * offline model on half of the LoCoMo conversations and holds on SQuAD, the gold and paraphrase
   * sets; a stronger embedding model may want more. @default 0.15
   */
  vectorWeight?: number;
  /** RRF's rank constant: larger flattens the difference between ranks. @default 60 */
  rrfK?: number;
}

/** Options of a similarity search. */
export interface SimilarityOptions {
  /**
   * `vector` (the default), `lexical` or `hybrid`. `lexical` and `hybrid` need the
   * `lexicalSearch` capability (else `invalid_argument`). In `vector` and `hybrid` modes a
   * result's relevance is its cosine similarity (hybrid results are ordered by the fused score);
   * in `lexical` mode it is the lexical score, in [0, 1]. @default 'vector'
   */
  mode?: SearchMode;
  /** The query's text, for `lexical` and `hybrid` searches whose query is given as a vector. */
  text?: string;
  /** How `hybrid` fuses its rankings. */
  fusion?: HybridFusion;
  /** OR across the list, AND inside each filter; empty matches everything. */
  filters?: readonly MemoryFilter[];
  /** Keep results whose cosine similarity is `>=` this. @default 0 */
  minRelevance?: number;
  /** Most results to return; `<= 0` means the connector's configured maximum. @default 0 */
  limit?: number;
  /** Return vectors with records. @default false */
  withEmbeddings?: boolean;
  signal?: AbortSignal;
}

/** Options of a listing. */
export interface ListOptions {
  filters?: readonly MemoryFilter[];
  /** Most records to return; `<= 0` means all. @default 0 */
  limit?: number;
  /** @default false */
  withEmbeddings?: boolean;
  signal?: AbortSignal;
}

/**
 * What a memory DB can do natively; core supplies the fallback for what it cannot, and
 * `@km/conformance` reads the same flags. Declared once, on the driver (see `MemoryDbDriver`).
 */
export interface MemoryDbCapabilities {
  /** `upsertBatch` writes a batch in one round trip (else core loops single writes). @default false */
  nativeBatch?: boolean;
  /** Filters may hold NOT conditions (else they fail with `unsupported_filter`). @default true */
  negatedFilters?: boolean;
  /** Similarity search uses embeddings (false for keyword stores such as SimpleTextDb). @default true */
  vectorSearch?: boolean;
  /** `upsert` into a missing index creates it (else it throws `IndexNotFoundError`). @default false */
  createsIndexOnUpsert?: boolean;
  /** An all-zero vector can be stored (it has no cosine similarity; some backends refuse it). @default true */
  zeroVectors?: boolean;
  /** Searches by words (full-text ranking of the partition text): modes `lexical` and `hybrid`. @default false */
  lexicalSearch?: boolean;
}

/**
 * A store of memory records. Index names reaching a connector are already normalised
 * (see `normalizeIndexName`); a connector must still never splice them into a query unescaped.
 * Semantics every connector honours are pinned by `@km/conformance`.
 */
export interface IMemoryDb {
  /** Short name used in errors and logs, e.g. `qdrant`. */
  readonly name?: string;
  readonly capabilities?: MemoryDbCapabilities;
  /**
   * Longest index name this DB accepts, in UTF-8 bytes of the normalised name (a connector that
   * adds a prefix of its own counts it out). Imports into a longer name are refused up front
   * with `invalid_index_name`. Absent: no limit known.
   */
  readonly maxIndexNameLength?: number;
  /** Creates the index if missing; a no-op when it exists with the same vector size. */
  createIndex(index: string, vectorSize: number): Promise<void>;
  /** Names of all indexes. */
  getIndexes(): Promise<string[]>;
  /** Deletes an index and its records; a no-op when missing. */
  deleteIndex(index: string): Promise<void>;
  /** Inserts or replaces a record; returns its id. */
  upsert(index: string, record: MemoryRecord): Promise<string>;
  /** Inserts or replaces many records; returns their ids in order. Optional: core loops `upsert`. */
  upsertBatch?(index: string, records: MemoryRecord[]): Promise<string[]>;
  /** Records most similar to `query` (text or vector), most relevant first, with cosine similarity. */
  getSimilarList(
    index: string,
    query: string | Float32Array | number[],
    options?: SimilarityOptions,
  ): AsyncIterable<[MemoryRecord, number]>;
  /** Records matching the filters, in id order. */
  getList(index: string, options?: ListOptions): AsyncIterable<MemoryRecord>;
  /** Deletes a record; a no-op when it or the index is missing. */
  delete(index: string, record: { id: string }): Promise<void>;
  /**
   * Optional: replaces the tags of existing records in place (vectors and payloads stay); ids
   * that do not exist, or a missing index, are skipped. Without it core reads the records with
   * their vectors and upserts them with the new tags.
   */
  updateTags?(index: string, updates: readonly RecordTagsUpdate[]): Promise<void>;
}

/** The new tags of one record (all of them, reserved `__` tags included), for {@link IMemoryDb.updateTags}. */
export interface RecordTagsUpdate {
  id: string;
  tags: TagCollection;
}
