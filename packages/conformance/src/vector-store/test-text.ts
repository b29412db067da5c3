import type { ITextTokenizer } from '@km/core';

/** Splits on whitespace, keeping it, so the tokens joined give back the text (the test generators' tokenizer). */
export const whitespaceTokenizer: ITextTokenizer = {
  countTokens: (text) => whitespaceTokenizer.getTokens(text).length,
  getTokens: (text) => text.split(/(\s+)/).filter((t) => t.length > 0),
};

const WORD = /[\p{L}\p{N}]+/gu;

/** The lower-cased words of a text (runs of letters and digits), as the test generators embed them. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}
