import type { IContentStorage } from '../contracts/content-storage.js';
import type { IMemoryDb } from '../contracts/memory-db.js';
import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { ITextGenerator } from '../contracts/text-generator.js';
import type { DecoderRegistry } from '../decoders/decoder-registry.js';
import type { Logger } from '../util/logger.js';

/** Defaults of the partition step; a request's `args` may override them. */
export interface PartitionOptions {
  /** @default 1000 */
  maxTokensPerChunk: number;
  /** @default 100 */
  overlapTokens: number;
  /** Text put at the top of every chunk. @default none */
  chunkHeader?: string;
}

/** Settings of the gen_embeddings step. */
export interface EmbeddingOptions {
  /** Embedding calls in flight at once. @default 4 */
  concurrency: number;
}

/** Settings of the extract step. */
export interface ExtractionOptions {
  /**
   * Time limit of one file's decoding, in ms. A file over it fails alone with a reason that
   * names the limit. @default 120000
   */
  decoderTimeoutMs: number;
}

/** What pipeline handlers work with: the stores, the AI services and the settings. */
export interface PipelineContext {
  readonly contentStorage: IContentStorage;
  /** Every record is written to each of these; search reads the first. */
  readonly memoryDbs: readonly IMemoryDb[];
  readonly embeddingGenerator: ITextEmbeddingGenerator | undefined;
  readonly textGenerator: ITextGenerator | undefined;
  readonly decoders: DecoderRegistry;
  readonly logger: Logger;
  readonly partitioning: PartitionOptions;
  readonly embedding: EmbeddingOptions;
  /** @default { decoderTimeoutMs: 120000 } */
  readonly extraction?: ExtractionOptions;
}
