import type { ITextTokenizer } from './text-tokenizer.js';

/** Turns text into embeddings. */
export interface ITextEmbeddingGenerator {
  /** Longest input, in tokens. */
  readonly maxTokens: number;
  /** Size of the vectors, when fixed. */
  readonly dimensions?: number;
  /** Identifies the model, e.g. `openai/text-embedding-3-small`; stored with each vector. */
  readonly modelName?: string;
  /** Most texts sent in one call. @default 1 */
  readonly maxBatchSize?: number;
  readonly tokenizer: ITextTokenizer;
  /** One embedding per text, in order. */
  generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * Loads the model, for generators that load one lazily. Once it resolves, `maxTokens`,
   * `dimensions`, `modelName` and `tokenizer` are final; the pipeline awaits it before reading
   * them. Rejects when the model cannot load.
   */
  ready?(): Promise<void>;
  /** Releases what the generator holds (worker threads, sessions). */
  close?(): Promise<void>;
}
