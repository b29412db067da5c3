import type { SearchMode } from '../contracts/memory-db.js';
import type { AnswerabilityModel } from './answerability.js';

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
   * When the extractive answer (no text generator) says "not found": a model of whether the
   * retrieved passages answer the question, from how much of the question's words the best
   * passages hold and (for a calibrated embedding model) their cosine; `false` answers every
   * question from what was found. Applied only when the caller gives no `minRelevance`.
   * @default the embedding model's fitted model (`ANSWERABILITY_MODELS`), else the words alone (`LEXICAL_ANSWERABILITY`)
   */
  answerability?: AnswerabilityModel | false | undefined;
  /**
   * A hard floor on the best passage's cosine for the extractive answer, in `vector` and
   * `hybrid` modes, checked before the answerability model: below it, "not found". Applied only
   * when the caller gives no `minRelevance`. @default none
   */
  answerFloor?: number | undefined;
  /**
   * Longest query (search) or question (ask) retrieval reads, in cl100k tokens: a longer one is
   * cut to its first `maxQueryTokens` tokens (or the embedding model's `maxTokens`, if smaller)
   * before it is embedded, searched for by words, reranked and answered from, so no request
   * holds the embedding model (or BM25) for long whatever its length. The answer still echoes
   * the whole question, and a text generator's prompt still gets it whole. @default 512
   */
  maxQueryTokens: number;
}

export const DEFAULT_SEARCH_OPTIONS: SearchClientOptions = {
  maxMatchesCount: 100,
  answerTokens: 300,
  temperature: 0,
  extractiveSentences: 3,
  defaultMinRelevance: 0,
  includeDuplicateFacts: false,
  defaultMode: 'hybrid',
  maxQueryTokens: 512,
};
