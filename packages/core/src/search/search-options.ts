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
  /** Relevance used by ask when the caller gives none. @default 0 */
  defaultMinRelevance: number;
  /**
   * Put identical partitions (same text, ignoring case) into the prompt once per occurrence;
   * by default each goes in once, while every occurrence stays in the citations. @default false
   */
  includeDuplicateFacts: boolean;
}

export const DEFAULT_SEARCH_OPTIONS: SearchClientOptions = {
  maxMatchesCount: 100,
  answerTokens: 300,
  temperature: 0,
  extractiveSentences: 3,
  defaultMinRelevance: 0,
  includeDuplicateFacts: false,
};
