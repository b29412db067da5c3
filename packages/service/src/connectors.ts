import { anthropicTextGeneratorFactory } from '@km/ai-anthropic/factory';
import { ollamaEmbeddingGeneratorFactory, ollamaTextGeneratorFactory } from '@km/ai-ollama/factory';
import {
  fileQueueFactory,
  memoryQueueFactory,
  type ContentStorageFactory,
  type EmbeddingGeneratorFactory,
  type KmPlugin,
  type KmPluginKind,
  type MemoryDbFactory,
  type QueueFactory,
  type TextGeneratorFactory,
} from '@km/core/connector';
import { azureAiSearchMemoryDbFactory } from '@km/memorydb-azure-ai-search/factory';
import { elasticsearchMemoryDbFactory } from '@km/memorydb-elasticsearch/factory';
import { mongoDbMemoryDbFactory } from '@km/memorydb-mongodb/factory';
import { postgresContentStorageFactory, postgresMemoryDbFactory } from '@km/memorydb-postgres/factory';
import { qdrantMemoryDbFactory } from '@km/memorydb-qdrant/factory';
import { redisMemoryDbFactory } from '@km/memorydb-redis/factory';
import { azureQueueFactory } from '@km/queue-azure/factory';
import { rabbitMqQueueFactory } from '@km/queue-rabbitmq/factory';
import { azureBlobsContentStorageFactory } from '@km/storage-azure-blobs/factory';
import { s3ContentStorageFactory } from '@km/storage-s3/factory';

/**
 * The memory DBs the service can use besides the embedded `simple` one: one line per
 * connector package, whose factory declares its settings (environment variables, flags) and
 * builds it. A factory loads its SDK only when it is the one configured.
 */
export const MEMORY_DB_FACTORIES: readonly MemoryDbFactory[] = [
  postgresMemoryDbFactory,
  qdrantMemoryDbFactory,
  elasticsearchMemoryDbFactory,
  redisMemoryDbFactory,
  mongoDbMemoryDbFactory,
  azureAiSearchMemoryDbFactory,
];

/** The queues the service can run its pipeline on, the first being the default: one line per connector package. */
export const QUEUE_FACTORIES: readonly QueueFactory[] = [fileQueueFactory, memoryQueueFactory, rabbitMqQueueFactory, azureQueueFactory];

/** The content storage in the data folder (DiskContentStorage): the only type without a factory. */
export const DISK_CONTENT_STORAGE = 'disk';

/**
 * The content storages the service can use besides `disk`, shared by every machine: one line
 * per connector package. A factory loads its SDK only when it is the one configured.
 */
export const CONTENT_STORAGE_FACTORIES: readonly ContentStorageFactory[] = [
  azureBlobsContentStorageFactory,
  s3ContentStorageFactory,
  postgresContentStorageFactory,
];

/**
 * The text generators (answers) the service can use besides OpenAI and Azure OpenAI, which its
 * own `openai` and `azureOpenai` settings configure: one line per provider package.
 */
export const TEXT_GENERATOR_FACTORIES: readonly TextGeneratorFactory[] = [anthropicTextGeneratorFactory, ollamaTextGeneratorFactory];

/** The embedding generators the service can use besides local, hashing, OpenAI and Azure OpenAI: one line per provider package. */
export const EMBEDDING_GENERATOR_FACTORIES: readonly EmbeddingGeneratorFactory[] = [ollamaEmbeddingGeneratorFactory];

/**
 * Every factory a host knows, by kind: the built-in ones ({@link BUILT_IN_CONNECTORS}) plus those
 * of the plugins it loaded (`loadPlugins`). The configuration, the command-line flags and the
 * memory builder all read the same registry.
 */
export type Connectors = { readonly [K in KmPluginKind]-?: NonNullable<KmPlugin[K]> };

/** The connectors km ships: the default plug-ins. */
export const BUILT_IN_CONNECTORS: Connectors = {
  memoryDbs: MEMORY_DB_FACTORIES,
  queues: QUEUE_FACTORIES,
  contentStorages: CONTENT_STORAGE_FACTORIES,
  textGenerators: TEXT_GENERATOR_FACTORIES,
  embeddingGenerators: EMBEDDING_GENERATOR_FACTORIES,
};

/**
 * Types a plugin may not use for each kind, because the service configures them itself:
 * `simple` memory DB, `disk` content storage, the OpenAI and local providers.
 */
export const RESERVED_TYPES: { readonly [K in KmPluginKind]: readonly string[] } = {
  memoryDbs: ['simple'],
  queues: [],
  contentStorages: [DISK_CONTENT_STORAGE],
  textGenerators: ['openai', 'azure-openai', 'azureopenai', 'none'],
  embeddingGenerators: ['local', 'hashing', 'openai', 'azure-openai', 'azureopenai'],
};

/** The factory of a configured memory DB type, if any (`simple` has none: the builder's embedded default). */
export function memoryDbFactory(type: string, connectors: Connectors = BUILT_IN_CONNECTORS): MemoryDbFactory | undefined {
  return connectors.memoryDbs.find((f) => f.type === type);
}

/** The factory of a configured queue type, if any. */
export function queueFactoryOf(type: string, connectors: Connectors = BUILT_IN_CONNECTORS): QueueFactory | undefined {
  return connectors.queues.find((f) => f.type === type);
}

/** The factory of a configured content storage type, if any (`disk` has none: the builder's default). */
export function contentStorageFactoryOf(type: string, connectors: Connectors = BUILT_IN_CONNECTORS): ContentStorageFactory | undefined {
  return connectors.contentStorages.find((f) => f.type === type);
}

/** The factory of a configured text generator type, if any. */
export function textGeneratorFactoryOf(type: string, connectors: Connectors = BUILT_IN_CONNECTORS): TextGeneratorFactory | undefined {
  return connectors.textGenerators.find((f) => f.type === type);
}

/** The factory of a configured embedding generator type, if any. */
export function embeddingGeneratorFactoryOf(
  type: string,
  connectors: Connectors = BUILT_IN_CONNECTORS,
): EmbeddingGeneratorFactory | undefined {
  return connectors.embeddingGenerators.find((f) => f.type === type);
}
