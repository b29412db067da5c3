import type { Readable } from 'node:stream';
import type { DocumentFiles, DocumentList, DocumentSummary, IndexDetails } from '@km/wire';
import type { ListDocumentsOptions } from '../documents/list-documents.js';
import type { DataPipelineStatus } from '../models/data-pipeline.js';
import type { Document, DocumentFileSource } from '../models/document.js';
import type { HybridFusion, SearchMode } from './memory-db.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import type { MemoryAnswer, SearchResult } from '../models/search-models.js';
import type { TagCollection } from '../models/tag-collection.js';

/** Options of an import. */
export interface ImportOptions {
  /** Target index; normalised; empty means `default`. */
  index?: string;
  /** Document id; a random one when missing. Ignored when importing a Document. */
  documentId?: string;
  tags?: TagCollection;
  /** Pipeline steps to run, in order. @default ['extract','partition','gen_embeddings','save_records'] */
  steps?: string[];
  /**
   * Per-request arguments of the handlers, KM's names: `custom_partitioning_max_tokens_per_paragraph_int`,
   * `custom_partitioning_overlapping_tokens_int`, `custom_partitioning_chunk_header_str`,
   * `custom_embedding_generation_batch_size_int` (km's older `maxTokensPerChunk`, `overlapTokens`,
   * `chunkHeader` still work). An unknown or ill-typed argument is refused (`invalid_argument`).
   * See `REQUEST_ARG_SPECS` and the README's table.
   */
  args?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** Options shared by search and ask. */
export interface RetrievalOptions {
  index?: string;
  /** One filter (AND of its conditions). */
  filter?: MemoryFilter;
  /** Several filters (OR across them). Combined with `filter` when both are given. */
  filters?: readonly MemoryFilter[];
  /**
   * Keep partitions whose cosine similarity is `>=` this. Absent: the memory's
   * `defaultMinRelevance` (0 unless configured), and ask without a text generator applies its
   * answer floor (see `SearchClientOptions.answerFloor`). @default the memory's defaultMinRelevance
   */
  minRelevance?: number;
  /**
   * `vector` (embeddings), `lexical` (words, BM25-style) or `hybrid` (both, fused). `lexical` and
   * `hybrid` need a memory DB with the `lexicalSearch` capability. @default the memory's configured mode
   */
  mode?: SearchMode;
  /** How `hybrid` fuses its rankings. @default reciprocal rank fusion, equal weights */
  fusion?: HybridFusion;
  /**
   * Rerank the retrieved partitions: `true` with the configured reranker (refused when none is),
   * `'mmr'` for maximal-marginal-relevance diversity (needs no configuration), `false` not at all.
   * @default the configured reranker when there is one, else none
   */
  rerank?: boolean | 'mmr';
  /**
   * Per-request arguments, KM's names: `custom_rag_prompt_str`, `custom_rag_fact_template_str`,
   * `custom_rag_empty_answer_str`, `custom_rag_include_duplicate_facts_bool`, `custom_rag_max_tokens_int`,
   * `custom_rag_max_matches_count_int`, `custom_rag_temperature_float`, `custom_rag_nucleus_sampling_float`,
   * `custom_text_generation_model_name`, e.g. `{ custom_rag_max_matches_count_int: 5 }`. An unknown
   * or ill-typed argument is refused (`invalid_argument`).
   */
  args?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** Options of a search. */
export interface SearchOptions extends RetrievalOptions {
  /** Most partitions to return; `<= 0` means the configured maximum. @default 0 */
  limit?: number;
}

/** A file read back from memory. */
export interface StreamableFileContent {
  fileName: string;
  fileType: string;
  lastWrite: Date;
  size: number;
  /** Opens the content. */
  getStream(): Promise<Readable>;
}

/** An index as listed by `listIndexes` (the type is @km/wire's). */
export type { IndexDetails } from '@km/wire';

/** What can be imported in one call: a Document, a file path, paths, or a single file source. */
export type ImportInput = Document | string | string[] | DocumentFileSource;

/**
 * The memory API shared by the in-process `MemoryServerless` and the web client.
 *
 * ```ts
 * const memory = new KernelMemoryBuilder().build();
 * await memory.importText('The Moon is 384,400 km away.', { documentId: 'moon' });
 * const answer = await memory.ask('How far is the Moon?');
 * ```
 */
export interface IKernelMemory {
  /** Imports a document; resolves with its id once ingestion is done (serverless) or accepted (service). */
  importDocument(input: ImportInput, options?: ImportOptions): Promise<string>;
  importText(text: string, options?: ImportOptions): Promise<string>;
  importWebPage(url: string, options?: ImportOptions): Promise<string>;
  listIndexes(): Promise<IndexDetails[]>;
  deleteIndex(index?: string): Promise<void>;
  deleteDocument(documentId: string, index?: string): Promise<void>;
  isDocumentReady(documentId: string, index?: string): Promise<boolean>;
  /** The document's pipeline status, or null when unknown. */
  getDocumentStatus(documentId: string, index?: string): Promise<DataPipelineStatus | null>;
  exportFile(documentId: string, fileName: string, index?: string): Promise<StreamableFileContent>;
  /** A page of an index's documents (id order) with their state, tags and files, and the cursor of the next page. */
  listDocuments(options?: ListDocumentsOptions): Promise<DocumentList>;
  /** The files stored with a document: uploads and the files the pipeline made from them. */
  getDocumentFiles(documentId: string, index?: string): Promise<DocumentFiles>;
  /** Replaces a document's own tags in its state and records, without ingesting it again. */
  updateDocumentTags(documentId: string, tags: TagCollection, index?: string): Promise<DocumentSummary>;
  search(query: string, options?: SearchOptions): Promise<SearchResult>;
  ask(question: string, options?: RetrievalOptions): Promise<MemoryAnswer>;
  askStreaming(question: string, options?: RetrievalOptions): AsyncIterable<MemoryAnswer>;
}
