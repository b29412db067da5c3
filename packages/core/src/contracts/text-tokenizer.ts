/** Counts and splits text into a model's tokens. */
export interface ITextTokenizer {
  /** Number of tokens in `text`. */
  countTokens(text: string): number;
  /** The text of each token, in order (joined they give back `text`). */
  getTokens(text: string): string[];
}
