import { countTokens, decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';
import type { ITextTokenizer } from '../contracts/text-tokenizer.js';

/**
 * Special-token markers such as `<|endoftext|>` inside user text are counted as plain text,
 * never as control tokens and never as an error: documents may contain anything.
 */
export const PLAIN_TEXT_ENCODING = { disallowedSpecial: new Set<string>() } as const;

/**
 * OpenAI's cl100k_base tokenizer (GPT-3.5/4, text-embedding-3), through `gpt-tokenizer`.
 *
 * ```ts
 * new CL100KTokenizer().countTokens('hello world') // 2
 * ```
 */
export class CL100KTokenizer implements ITextTokenizer {
  countTokens(text: string): number {
    return countTokens(text, PLAIN_TEXT_ENCODING);
  }

  getTokens(text: string): string[] {
    return encode(text, PLAIN_TEXT_ENCODING).map((token) => decode([token]));
  }
}
