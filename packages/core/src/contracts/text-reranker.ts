/** A passage offered to a reranker. */
export interface RerankCandidate {
  /** The passage text. */
  text: string;
  /** Its retrieval score: the cosine in vector search; in hybrid and lexical search a rank score (1 for the first, falling evenly). */
  relevance: number;
  /** Its embedding, when retrieval returned one (MMR needs it). */
  vector?: Float32Array | number[];
}

/** What a rerank call may say besides the query and candidates. */
export interface RerankOptions {
  /** Most candidates to return. @default all */
  top?: number;
  /** The query's embedding, when the caller has it (MMR needs it). */
  queryVector?: Float32Array | number[];
  signal?: AbortSignal;
}

/** One reranked candidate: its position in the input and its new score (higher is better). */
export interface RerankResult {
  index: number;
  score: number;
}

/**
 * Reorders retrieved passages for a query: a cross-encoder or a reranking API (Cohere, Jina,
 * Voyage), or MMR for diversity. Never on by default: an application configures one, or a
 * request asks for one.
 */
export interface ITextReranker {
  /** Identifies the reranker in logs and errors, e.g. `mmr` or `cohere/rerank-v3.5`. */
  readonly name: string;
  /** Whether it needs the candidates' and the query's embeddings (MMR does). @default false */
  readonly needsVectors?: boolean;
  /** The candidates best first, at most `top`, each with its index in `candidates`. */
  rerank(query: string, candidates: readonly RerankCandidate[], options?: RerankOptions): Promise<RerankResult[]>;
  /** Releases what the reranker holds. */
  close?(): Promise<void>;
}
