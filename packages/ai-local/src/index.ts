import type { ITextEmbeddingGenerator } from '@km/core';
import { UniversalSentenceEncoderGenerator } from './use/universal-sentence-encoder-generator.js';

export { UniversalSentenceEncoderGenerator, type UniversalSentenceEncoderOptions } from './use/universal-sentence-encoder-generator.js';
export { loadUseModel, embedPacked, USE_DIMENSIONS } from './use/use-model.js';
export {
  TransformersEmbeddingGenerator,
  type TransformersEmbeddingGeneratorOptions,
} from './transformers/transformers-embedding-generator.js';
export { HIGH_PRIORITY_STREAK, WorkerPool, type JobPriority } from './worker-pool.js';

/**
 * The embedded default of km (`KernelMemoryBuilder` finds it when this package is installed):
 * Universal Sentence Encoder lite in one worker thread per core.
 */
export function createDefaultEmbeddingGenerator(): ITextEmbeddingGenerator {
  return new UniversalSentenceEncoderGenerator();
}
