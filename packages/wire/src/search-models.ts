import type { TagCollection } from './tag-collection.js';

/** A partition of a source that matched a query. */
export interface CitationPartition {
  text: string;
  /**
   * Retrieval relevance: the cosine similarity of the query and the partition, in [-1, 1] (vector
   * and hybrid search), or the lexical score in [0, 1] (lexical search). Reranking reorders
   * partitions but leaves this unchanged.
   */
  relevance: number;
  partitionNumber: number;
  /** Section of the source (the page of a PDF), 0 when the format has none. */
  sectionNumber: number;
  /** When the partition was written (ISO 8601). */
  lastUpdate: string;
  tags: TagCollection;
}

/** One source file and the partitions of it that matched. */
export interface Citation {
  /** `{index}/{documentId}/{fileId}`, usable with exportFile and `GET /download`. */
  link: string;
  index: string;
  documentId: string;
  fileId: string;
  sourceContentType: string;
  sourceName: string;
  sourceUrl?: string;
  partitions: CitationPartition[];
}

/** Answer of `POST /search` (and result of `search`). */
export interface SearchResult {
  query: string;
  noResult: boolean;
  results: Citation[];
}

/**
 * Stream states of Kernel Memory's streaming ask: `append` adds `text` to the answer so far,
 * `reset` replaces it, `last` is the final chunk, `error` ends the answer with the reason in
 * `noResultReason`.
 */
export type StreamState = 'error' | 'reset' | 'append' | 'last';

/** Token counts of one model call. */
export interface TokenUsage {
  timestamp: string;
  serviceType?: string;
  modelType?: string;
  modelName?: string;
  tokenizerTokensIn?: number;
  tokenizerTokensOut?: number;
  serviceTokensIn?: number;
  serviceTokensOut?: number;
  serviceReasoningTokens?: number;
}

/** Answer of `POST /ask` (and result of `ask`); a streamed ask sends it in chunks. */
export interface MemoryAnswer {
  streamState?: StreamState;
  question: string;
  noResult: boolean;
  noResultReason?: string;
  text: string;
  relevantSources: Citation[];
  tokenUsage: TokenUsage[];
}
