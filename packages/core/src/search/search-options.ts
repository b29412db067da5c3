/** Settings of search and ask. */
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
}

export const DEFAULT_SEARCH_OPTIONS: SearchClientOptions = {
  maxMatchesCount: 100,
  answerTokens: 300,
  temperature: 0,
  extractiveSentences: 3,
  defaultMinRelevance: 0,
};
