import { resolve } from 'node:path';
import { createDefaultEmbeddingGenerator } from '@km/ai-local';
import type { OpenAIConnectionOptions } from '@km/ai-openai';
import {
  HashingEmbeddingGenerator,
  InvalidInputError,
  KernelMemoryBuilder,
  type ITextEmbeddingGenerator,
  type ITextGenerator,
  type Logger,
  type MemoryService,
  type PipelineObserver,
  WebPageFetcher,
} from '@km/core';
import { createDecoders } from '@km/decoders';
import type { ServiceConfig } from './config.js';
import { BUILT_IN_CONNECTORS, embeddingGeneratorFactoryOf, textGeneratorFactoryOf, type Connectors } from './connectors.js';
import { contentStorageFromConfig } from './content-storage-factory.js';
import { memoryDbsFromConfig } from './memory-db-factory.js';
import { queueFactory } from './queue-factory.js';
import { describeSearch, rerankerFromConfig } from './reranker-factory.js';

/** Pieces the service and `km worker` add to what the configuration describes. */
export interface MemoryFactoryOptions {
  logger: Logger;
  observer?: PipelineObserver;
  /** Replaces the builder's result before it is built (custom handlers, memory DBs...). */
  configure?: (builder: KernelMemoryBuilder) => KernelMemoryBuilder;
  /** The connectors the configuration's types name: built-in and plugins'. @default BUILT_IN_CONNECTORS */
  connectors?: Connectors;
}

/** Builds the memory the configuration describes: storage, queues, embeddings, answers, decoders. */
export async function createMemoryFromConfig(config: ServiceConfig, options: MemoryFactoryOptions): Promise<MemoryService> {
  const dataDirectory = resolve(config.dataDirectory);
  const connectors = options.connectors ?? BUILT_IN_CONNECTORS;
  let builder = new KernelMemoryBuilder()
    .withDataDirectory(dataDirectory)
    .withLogger(options.logger)
    .withQueueFactory(await queueFactory(config, dataDirectory, options.logger, connectors))
    .withOrchestratorOptions({
      maxAttempts: config.queue.maxStepAttempts,
      retryBudgetMs: config.queue.retryBudgetMs,
      retryDelayMs: config.queue.retryDelayMs,
      ...(options.observer ? { observer: options.observer } : {}),
    })
    .withEmbeddingGenerator(await embeddingGenerator(config, options.logger, connectors));
  const contentStorage = await contentStorageFromConfig(config.contentStorage, { logger: options.logger }, connectors);
  if (contentStorage) builder = builder.withContentStorage(contentStorage);
  for (const memoryDb of await memoryDbsFromConfig(config.memoryDb, { logger: options.logger, dataDirectory }, connectors))
    builder = builder.withMemoryDb(memoryDb);
  for (const decoder of createDecoders()) builder = builder.withDecoder(decoder);
  if (config.search.mode) builder = builder.withSearchOptions({ defaultMode: config.search.mode });
  const reranker = rerankerFromConfig(config.search);
  if (reranker) builder = builder.withReranker(reranker);
  const answers = await textGenerator(config, options.logger, connectors);
  if (answers) builder = builder.withTextGenerator(answers);
  if (config.web.allowPrivateNetworks) builder = builder.withWebPageFetcher(new WebPageFetcher({ allowPrivateNetworks: true }));
  if (options.configure) builder = options.configure(builder);
  return builder.buildService();
}

/** A short description of the AI settings, for the startup log. */
export function describeAi(config: ServiceConfig): { embeddings: string; answers: string; search: string } {
  const embeddings =
    config.embeddings.provider === 'openai'
      ? `openai/${config.openai.embeddingModel}`
      : config.embeddings.provider === 'azure-openai'
        ? `azure-openai/${config.azureOpenai.embeddingDeployment}`
        : config.embeddings.provider === 'hashing'
          ? 'hashing (word-hashing vectors, for tests)'
          : 'local/universal-sentence-encoder-lite';
  const answers =
    {
      'azure-openai': `azure-openai/${config.azureOpenai.chatDeployment}`,
      openai: `openai/${config.openai.textModel}`,
      anthropic: `anthropic/${config.textGenerator.anthropicModel}`,
      ollama: `ollama/${config.textGenerator.ollamaTextModel} at ${config.textGenerator.ollamaUrl}`,
      none: 'extractive (no LLM configured)',
    }[textGeneratorType(config)] ?? String(config.textGenerator.type);
  return { embeddings: embeddingsDescription(config, embeddings), answers, search: describeSearch(config.search) };
}

function embeddingsDescription(config: ServiceConfig, builtIn: string): string {
  if (config.embeddings.provider === 'ollama') return `ollama/${config.embeddings.ollamaEmbeddingModel} at ${config.embeddings.ollamaUrl}`;
  return builtIn;
}

/**
 * The text generator type in effect: the configured one, else Azure OpenAI when a chat
 * deployment is set, else OpenAI when its key or base URL is set, else none.
 */
export function textGeneratorType(config: ServiceConfig): string {
  if (config.textGenerator.type) return config.textGenerator.type;
  if (config.azureOpenai.chatDeployment) return 'azure-openai';
  return openAIConnection(config) ? 'openai' : 'none';
}

async function textGenerator(config: ServiceConfig, logger: Logger, connectors: Connectors): Promise<ITextGenerator | undefined> {
  const type = textGeneratorType(config);
  switch (type) {
    case 'none':
      return undefined;
    case 'azure-openai': {
      const azure = config.azureOpenai;
      const connection = await azureConnection(config, azure.chatDeployment!);
      const { OpenAITextGenerator } = await openAi();
      return new OpenAITextGenerator({ connection, ...(azure.chatModel ? { model: azure.chatModel } : {}), logger });
    }
    case 'openai': {
      const { OpenAITextGenerator } = await openAi();
      return new OpenAITextGenerator({ connection: openAIConnection(config)!, model: config.openai.textModel, logger });
    }
    default: {
      const factory = textGeneratorFactoryOf(type, connectors);
      if (!factory) throw new InvalidInputError('invalid_argument', `configuration: unknown text generator ${JSON.stringify(type)}`);
      return factory.create(config.textGenerator, { logger });
    }
  }
}

async function embeddingGenerator(config: ServiceConfig, logger: Logger, connectors: Connectors): Promise<ITextEmbeddingGenerator> {
  const factory = embeddingGeneratorFactoryOf(config.embeddings.provider, connectors);
  if (factory) return factory.create(config.embeddings, { logger });
  switch (config.embeddings.provider) {
    case 'hashing':
      return new HashingEmbeddingGenerator();
    case 'openai': {
      const { OpenAIEmbeddingGenerator } = await openAi();
      return new OpenAIEmbeddingGenerator({ connection: openAIConnection(config)!, model: config.openai.embeddingModel });
    }
    case 'azure-openai': {
      const { embeddingDeployment, embeddingModel } = config.azureOpenai;
      const connection = await azureConnection(config, embeddingDeployment!);
      const { OpenAIEmbeddingGenerator } = await openAi();
      return new OpenAIEmbeddingGenerator({ connection, ...(embeddingModel ? { model: embeddingModel } : {}) });
    }
    default:
      return createDefaultEmbeddingGenerator();
  }
}

/** `@km/ai-openai` (and the OpenAI SDK), loaded when a service uses OpenAI: every other start is a tenth of a second quicker. */
const openAi = () => import('@km/ai-openai');

function openAIConnection(config: ServiceConfig): OpenAIConnectionOptions | undefined {
  const { apiKey, baseUrl } = config.openai;
  if (baseUrl) return { provider: 'compatible', baseURL: baseUrl, ...(apiKey ? { apiKey } : {}) };
  if (apiKey) return { apiKey };
  return undefined;
}

/** An Azure OpenAI deployment, keyed by the API key or by a Microsoft Entra identity. */
async function azureConnection(config: ServiceConfig, deployment: string): Promise<OpenAIConnectionOptions> {
  const { endpoint, apiKey, apiVersion, auth } = config.azureOpenai;
  const base = { provider: 'azure' as const, endpoint: endpoint!, deployment, apiVersion };
  if (auth === 'key') return { ...base, apiKey: apiKey! };
  return { ...base, azureADTokenProvider: await entraTokenProvider() };
}

/** A bearer-token provider from `@azure/identity`'s DefaultAzureCredential, imported only when Entra is configured. */
async function entraTokenProvider(): Promise<() => Promise<string>> {
  const specifier = '@azure/identity'; // not a dependency: installed by those who use Entra
  let identity: AzureIdentity;
  try {
    identity = (await import(specifier)) as AzureIdentity;
  } catch (cause) {
    throw new InvalidInputError(
      'not_configured',
      'KM_AZURE_OPENAI_AUTH=entra needs the @azure/identity package: install it next to @km/service (e.g. `pnpm add @azure/identity`), or use KM_AZURE_OPENAI_AUTH=key with KM_AZURE_OPENAI_API_KEY',
      { cause },
    );
  }
  return identity.getBearerTokenProvider(new identity.DefaultAzureCredential(), 'https://cognitiveservices.azure.com/.default');
}

/** The slice of `@azure/identity` the service uses. */
interface AzureIdentity {
  DefaultAzureCredential: new () => unknown;
  getBearerTokenProvider(credential: unknown, scope: string): () => Promise<string>;
}
