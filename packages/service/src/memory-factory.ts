import { join, resolve } from 'node:path';
import { createDefaultEmbeddingGenerator } from '@km/ai-local';
import { OpenAIEmbeddingGenerator, OpenAITextGenerator, type OpenAIConnectionOptions } from '@km/ai-openai';
import {
  FileQueue,
  HashingEmbeddingGenerator,
  InMemoryQueue,
  InMemoryQueueBroker,
  KernelMemoryBuilder,
  type IQueue,
  type ITextEmbeddingGenerator,
  type Logger,
  type MemoryService,
  type PipelineObserver,
} from '@km/core';
import { createDecoders } from '@km/decoders';
import { AzureQueue } from '@km/queue-azure';
import { RabbitMqQueue } from '@km/queue-rabbitmq';
import type { ServiceConfig } from './config.js';
import { memoryDbFromConfig } from './memory-db-factory.js';

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
    .withQueueFactory(queueFactory(config, dataDirectory, options.logger))
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

/** The queue client factory of the configured queue type; one client per pipeline step. */
export function queueFactory(config: ServiceConfig, dataDirectory: string, logger: Logger): (step: string) => IQueue {
  const q = config.queue;
  switch (q.type) {
    case 'rabbitmq':
      return () =>
        new RabbitMqQueue({
          url: q.rabbitmqUrl,
          queuePrefix: q.prefix,
          maxAttempts: q.maxAttempts,
          retryDelayMs: q.retryDelayMs,
          concurrency: q.concurrency,
          logger,
        });
    case 'azure':
      return () =>
        new AzureQueue({
          connectionString: q.azureConnectionString!,
          queuePrefix: q.prefix,
          maxAttempts: q.maxAttempts,
          retryDelayMs: q.retryDelayMs,
          visibilityTimeoutMs: q.visibilityTimeoutMs,
          concurrency: q.concurrency,
          logger,
        });
    case 'memory': {
      const broker = new InMemoryQueueBroker();
      return () => new InMemoryQueue({ broker, maxAttempts: q.maxAttempts, retryDelayMs: q.retryDelayMs, concurrency: q.concurrency });
    }
    default:
      return () =>
        new FileQueue({
          directory: join(dataDirectory, 'queues', ...(q.prefix ? [q.prefix] : [])),
          maxAttempts: q.maxAttempts,
          retryDelayMs: q.retryDelayMs,
          visibilityTimeoutMs: q.visibilityTimeoutMs,
          pollIntervalMs: q.pollIntervalMs,
          concurrency: q.concurrency,
        });
  }
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
