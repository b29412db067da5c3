import { countTokens, decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';
import type { ITextTokenizer } from '../contracts/text-tokenizer.js';

/**
 * OpenAI's cl100k_base tokenizer (GPT-3.5/4, text-embedding-3), through `gpt-tokenizer`.
 *
 * ```ts
 * new CL100KTokenizer().countTokens('hello world') // 2
 * ```
 */
export class CL100KTokenizer implements ITextTokenizer {
  countTokens(text: string): number {
    return countTokens(text);
  }

  getTokens(text: string): string[] {
    return encode(text).map((token) => decode([token]));
  }
}
