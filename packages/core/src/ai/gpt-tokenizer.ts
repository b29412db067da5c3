import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import type { ITextTokenizer } from '../contracts/text-tokenizer.js';

/**
 * Special-token markers such as `<|endoftext|>` inside user text are counted as plain text,
 * never as control tokens and never as an error: documents may contain anything.
 */
export const PLAIN_TEXT_ENCODING = { disallowedSpecial: new Set<string>() } as const;

/** The functions of one `gpt-tokenizer` encoding module (`gpt-tokenizer/encoding/...`). */
export interface BpeEncoding {
  countTokens(text: string, options: typeof PLAIN_TEXT_ENCODING): number;
  encode(text: string, options: typeof PLAIN_TEXT_ENCODING): number[];
  decode(tokens: number[]): string;
}

/**
 * A tokenizer over one of OpenAI's BPE encodings from `gpt-tokenizer`, reading user text as
 * plain text (see {@link PLAIN_TEXT_ENCODING}).
 */
export class BpeTokenizer implements ITextTokenizer {
  constructor(private readonly encoding: BpeEncoding) {}

  countTokens(text: string): number {
    return this.encoding.countTokens(text, PLAIN_TEXT_ENCODING);
  }

  getTokens(text: string): string[] {
    return this.encoding.encode(text, PLAIN_TEXT_ENCODING).map((token) => this.encoding.decode([token]));
  }
}

/**
 * OpenAI's cl100k_base tokenizer (GPT-3.5/4, text-embedding-3), through `gpt-tokenizer`.
 *
 * ```ts
 * new CL100KTokenizer().countTokens('hello world') // 2
 * ```
 */
export class CL100KTokenizer extends BpeTokenizer {
  constructor() {
    super(cl100k);
  }
}
