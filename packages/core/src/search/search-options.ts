import type { SearchMode } from '../contracts/memory-db.js';

/** Settings of search and ask; a request's KM arguments (`custom_rag_*`) override them. */
export interface SearchClientOptions {
  /** Partitions considered by search (when its limit is `<= 0`) and by ask. @default 100 */
  maxMatchesCount: number;
  /** Tokens reserved for the generated answer. @default 300 */
  answerTokens: number;
  /** Temperature of answers. @default 0 */
  temperature: number;
  /** Most sentences quoted by the extractive answer (no LLM). @default 3 */
  extractiveSentences: number;
  /** Relevance (cosine) search and ask keep when the caller gives no `minRelevance`. @default 0 */
  defaultMinRelevance: number;
  /**
   * Put identical partitions (same text, ignoring case) into the prompt once per occurrence;
   * by default each goes in once, while every occurrence stays in the citations. @default false
   */
  includeDuplicateFacts: boolean;
  /**
   * Search mode used when a request gives none. `lexical` or `hybrid` on a memory DB without the
   * `lexicalSearch` capability falls back to `vector` (a request that asks for them is refused).
   * Hybrid is the default because it found the right passage in the top 5 more often than either
   * side alone in the evaluation (`pnpm --filter @km/bench bench:rag`, bench/README.md).
   * @default 'hybrid'
   */
  defaultMode: SearchMode;
  /**
   * Relevance floor of the extractive answer (no text generator), applied when the caller gives
   * no `minRelevance` in `vector` and `hybrid` modes: when the best passage's cosine is below it,
   * ask answers "not found" (`noResult`, KM's empty answer); so it does, in every mode, when no
   * passage holds most of the question's content words (see `answer-floor.ts`). `0` turns the
   * floor off (the word checks stay; a `minRelevance` from the caller skips them all).
   * @default the embedding model's calibrated floor (`ANSWER_FLOORS`; 0 for a model not in the table)
   */
  answerFloor?: number | undefined;
}

export const DEFAULT_SEARCH_OPTIONS: SearchClientOptions = {
  maxMatchesCount: 100,
  answerTokens: 300,
  temperature: 0,
  extractiveSentences: 3,
  defaultMinRelevance: 0,
  includeDuplicateFacts: false,
  defaultMode: 'hybrid',
};
