import { createRequire } from 'node:module';
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
  private loaded: BpeEncoding | undefined;

  /**
   * @param encoding the encoding, or a function that returns it, called once on first use so
   * the encoding's tables (megabytes) are only loaded by a process that counts tokens.
   */
  constructor(private readonly encoding: BpeEncoding | (() => BpeEncoding)) {}

  /** The encoding, loaded on first use. */
  protected get bpe(): BpeEncoding {
    this.loaded ??= typeof this.encoding === 'function' ? this.encoding() : this.encoding;
    return this.loaded;
  }

  countTokens(text: string): number {
    return this.bpe.countTokens(text, PLAIN_TEXT_ENCODING);
  }

  getTokens(text: string): string[] {
    return this.bpe.encode(text, PLAIN_TEXT_ENCODING).map((token) => this.bpe.decode([token]));
  }

  /**
   * The longest start of `text` of at most `maxTokens` tokens (the whole text when it fits),
   * read in time bounded by `maxTokens`, not by the text: only its first
   * `maxTokens * MAX_CHARS_PER_TOKEN` characters are encoded.
   *
   * ```ts
   * new CL100KTokenizer().truncate('one two three four', 2) // 'one two'
   * ```
   */
  truncate(text: string, maxTokens: number): string {
    const limit = Math.max(0, Math.floor(maxTokens));
    // No character is more than 3 tokens (a UTF-16 unit is at most 3 bytes of UTF-8; a pair, 4).
    if (text.length * 3 <= limit) return text;
    const head = text.slice(0, limit * MAX_CHARS_PER_TOKEN);
    const tokens = this.bpe.encode(head, PLAIN_TEXT_ENCODING);
    if (tokens.length <= limit && head.length === text.length) return text;
    // A cut inside a character decodes to U+FFFD: drop it.
    return this.bpe.decode(tokens.slice(0, limit)).replace(/\uFFFD+$/u, '');
  }
}

/**
 * Characters of text encoded per token wanted when truncating: far above the 3 to 5 of prose,
 * so a cut falls on a token boundary unless the text is made of very long tokens (runs of
 * spaces, long numbers), which are then cut a little earlier.
 */
export const MAX_CHARS_PER_TOKEN = 32;

/**
 * Loads a `gpt-tokenizer` encoding synchronously, by its name (`'cl100k_base'`, `'o200k_base'`...),
 * from the package's CommonJS build. Pass it to {@link BpeTokenizer} as a function so the tables
 * load on first use, not when the module is imported:
 *
 * ```ts
 * new BpeTokenizer(() => loadGptEncoding('o200k_base'))
 * ```
 */
export function loadGptEncoding(name: 'cl100k_base' | 'o200k_base' | 'p50k_base' | 'r50k_base'): BpeEncoding {
  return requireFromHere(`gpt-tokenizer/encoding/${name}`) as BpeEncoding;
}

const requireFromHere = createRequire(import.meta.url);

/**
 * OpenAI's cl100k_base tokenizer (GPT-3.5/4, text-embedding-3), through `gpt-tokenizer`; its
 * tables are loaded on first use.
 *
 * ```ts
 * new CL100KTokenizer().countTokens('hello world') // 2
 * ```
 */
export class CL100KTokenizer extends BpeTokenizer {
  constructor() {
    super(() => loadGptEncoding('cl100k_base'));
  }
}
