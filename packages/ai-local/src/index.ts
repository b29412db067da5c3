import { UniversalSentenceEncoderGenerator } from './use/universal-sentence-encoder-generator.js';

export { UniversalSentenceEncoderGenerator, type UniversalSentenceEncoderOptions } from './use/universal-sentence-encoder-generator.js';
export { loadUseModel, embedPacked, USE_DIMENSIONS } from './use/use-model.js';
export {
  TransformersEmbeddingGenerator,
  type TransformersEmbeddingGeneratorOptions,
} from './transformers/transformers-embedding-generator.js';
export { HIGH_PRIORITY_STREAK, WorkerPool, type JobPriority, type PoolStats } from './worker-pool.js';

/**
 * The offline embedding model of km's embedded defaults: Universal Sentence Encoder lite in one
 * worker thread per core. Core loads no model package by itself; choose this where the
 * application is assembled (the service and the CLI do):
 *
 * ```ts
 * new KernelMemoryBuilder().withEmbeddingGenerator(createDefaultEmbeddingGenerator()).build();
 * ```
 */
export function createDefaultEmbeddingGenerator(): UniversalSentenceEncoderGenerator {
  return new UniversalSentenceEncoderGenerator();
}
