import type { ITextTokenizer } from './text-tokenizer.js';

/** What a caller says about one `generateEmbeddings` call. */
export interface EmbeddingRequestOptions {
  /**
   * `query`: the text of a search or a question, which someone is waiting for; `document`:
   * ingestion. Generators that share a model between both (the local model's worker pool)
   * serve queries first. The vectors are the same either way.
   * @default unstated: treated as `'document'` (core's search and ask always say `'query'`)
   */
  purpose?: 'query' | 'document';
}

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
  generateEmbeddings(texts: string[], signal?: AbortSignal, options?: EmbeddingRequestOptions): Promise<Float32Array[]>;
  /**
   * Loads the model, for generators that load one lazily. Once it resolves, `maxTokens`,
   * `dimensions`, `modelName` and `tokenizer` are final; the pipeline awaits it before reading
   * them. Rejects when the model cannot load.
   */
  ready?(): Promise<void>;
  /** Releases what the generator holds (worker threads, sessions). */
  close?(): Promise<void>;
}
