import { anthropicTextGeneratorFactory } from '@km/ai-anthropic/factory';
import { ollamaEmbeddingGeneratorFactory, ollamaTextGeneratorFactory } from '@km/ai-ollama/factory';
import {
  fileQueueFactory,
  memoryQueueFactory,
  type ContentStorageFactory,
  type EmbeddingGeneratorFactory,
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

/** The factory of a configured memory DB type, if any (`simple` has none: the builder's embedded default). */
export function memoryDbFactory(type: string): MemoryDbFactory | undefined {
  return MEMORY_DB_FACTORIES.find((f) => f.type === type);
}

/** The queues the service can run its pipeline on, the first being the default: one line per connector package. */
export const QUEUE_FACTORIES: readonly QueueFactory[] = [fileQueueFactory, memoryQueueFactory, rabbitMqQueueFactory, azureQueueFactory];

/** The factory of a configured queue type, if any. */
export function queueFactoryOf(type: string): QueueFactory | undefined {
  return QUEUE_FACTORIES.find((f) => f.type === type);
}

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

/** The factory of a configured content storage type, if any (`disk` has none: the builder's default). */
export function contentStorageFactoryOf(type: string): ContentStorageFactory | undefined {
  return CONTENT_STORAGE_FACTORIES.find((f) => f.type === type);
}

/**
 * The text generators (answers) the service can use besides OpenAI and Azure OpenAI, which its
 * own `openai` and `azureOpenai` settings configure: one line per provider package.
 */
export const TEXT_GENERATOR_FACTORIES: readonly TextGeneratorFactory[] = [anthropicTextGeneratorFactory, ollamaTextGeneratorFactory];

/** The factory of a configured text generator type, if any. */
export function textGeneratorFactoryOf(type: string): TextGeneratorFactory | undefined {
  return TEXT_GENERATOR_FACTORIES.find((f) => f.type === type);
}

/** The embedding generators the service can use besides local, hashing, OpenAI and Azure OpenAI: one line per provider package. */
export const EMBEDDING_GENERATOR_FACTORIES: readonly EmbeddingGeneratorFactory[] = [ollamaEmbeddingGeneratorFactory];

/** The factory of a configured embedding generator type, if any. */
export function embeddingGeneratorFactoryOf(type: string): EmbeddingGeneratorFactory | undefined {
  return EMBEDDING_GENERATOR_FACTORIES.find((f) => f.type === type);
}
