import { resolve } from 'node:path';
import { createDefaultEmbeddingGenerator } from '@km/ai-local';
import { OpenAIEmbeddingGenerator, OpenAITextGenerator, type OpenAIConnectionOptions } from '@km/ai-openai';
import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  type ITextEmbeddingGenerator,
  type Logger,
  type MemoryService,
  type PipelineObserver,
} from '@km/core';
import { createDecoders } from '@km/decoders';
import type { ServiceConfig } from './config.js';
import { memoryDbFromConfig } from './memory-db-factory.js';
import { queueFactory } from './queue-factory.js';

/** Pieces the service and `km worker` add to what the configuration describes. */
export interface MemoryFactoryOptions {
  logger: Logger;
  observer?: PipelineObserver;
  /** Replaces the builder's result before it is built (custom handlers, memory DBs...). */
  configure?: (builder: KernelMemoryBuilder) => KernelMemoryBuilder;
}

/** Builds the memory the configuration describes: storage, queues, embeddings, answers, decoders. */
export async function createMemoryFromConfig(config: ServiceConfig, options: MemoryFactoryOptions): Promise<MemoryService> {
  const dataDirectory = resolve(config.dataDirectory);
  let builder = new KernelMemoryBuilder()
    .withDataDirectory(dataDirectory)
    .withLogger(options.logger)
    .withQueueFactory(await queueFactory(config, dataDirectory, options.logger))
    .withOrchestratorOptions({ maxAttempts: config.queue.maxStepAttempts, retryDelayMs: config.queue.retryDelayMs, ...(options.observer ? { observer: options.observer } : {}) })
    .withEmbeddingGenerator(embeddingGenerator(config));
  const memoryDb = await memoryDbFromConfig(config.memoryDb);
  if (memoryDb) builder = builder.withMemoryDb(memoryDb);
  for (const decoder of createDecoders()) builder = builder.withDecoder(decoder);
  const connection = openAIConnection(config);
  if (connection) builder = builder.withTextGenerator(new OpenAITextGenerator({ connection, model: config.openai.textModel, logger: options.logger }));
  if (options.configure) builder = options.configure(builder);
  return builder.buildService();
}

/** A short description of the AI settings, for the startup log. */
export function describeAi(config: ServiceConfig): { embeddings: string; answers: string } {
  const embeddings =
    config.embeddings.provider === 'openai'
      ? `openai/${config.openai.embeddingModel}`
      : config.embeddings.provider === 'hashing'
        ? 'hashing (word-hashing vectors, for tests)'
        : 'local/universal-sentence-encoder-lite';
  const answers = openAIConnection(config) ? `openai/${config.openai.textModel}` : 'extractive (no LLM configured)';
  return { embeddings, answers };
}

function embeddingGenerator(config: ServiceConfig): ITextEmbeddingGenerator {
  switch (config.embeddings.provider) {
    case 'hashing':
      return new HashingEmbeddingGenerator();
    case 'openai':
      return new OpenAIEmbeddingGenerator({ connection: openAIConnection(config)!, model: config.openai.embeddingModel });
    default:
      return createDefaultEmbeddingGenerator();
  }
}

function openAIConnection(config: ServiceConfig): OpenAIConnectionOptions | undefined {
  const { apiKey, baseUrl } = config.openai;
  if (baseUrl) return { provider: 'compatible', baseURL: baseUrl, ...(apiKey ? { apiKey } : {}) };
  if (apiKey) return { apiKey };
  return undefined;
}
