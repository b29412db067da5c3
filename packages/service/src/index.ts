export { startService, startWorker, type RunningService, type RunningWorker, type StartOptions } from './server.js';
export { createApp, type AppOptions } from './app.js';
export { registerTracing } from './http/tracing.js';
export { registerConsoleRoutes, type ConsoleRouteOptions } from './routes/console.js';
export {
  loadConfig,
  loadServiceConfig,
  configuredPlugins,
  DEFAULT_CONFIG,
  MIN_ACCESS_KEY_LENGTH,
  type ServiceConfig,
  type ServiceConfigInput,
  type LoadConfigOptions,
  type EmbeddingProvider,
  type TextGeneratorType,
  type QueueType,
  type MemoryDbType,
} from './config.js';
export { memoryDbFromConfig, memoryDbsFromConfig } from './memory-db-factory.js';
export { memoryDbTypes } from './memory-db-types.js';
export { simpleVectorDbFactory, simpleVectorDbOptions, type SimpleVectorDbFactoryContext } from './simple-vector-db-factory.js';
export { contentStorageFromConfig } from './content-storage-factory.js';
export { RERANKER_KINDS, type RerankerKind, type SearchConfig } from './search-config.js';
export { rerankerFromConfig } from './reranker-factory.js';
export { loadPlugins, pluginNames, type LoadPluginsOptions } from './plugins.js';
export {
  BUILT_IN_CONNECTORS,
  RESERVED_TYPES,
  type Connectors,
  CONTENT_STORAGE_FACTORIES,
  EMBEDDING_GENERATOR_FACTORIES,
  MEMORY_DB_FACTORIES,
  QUEUE_FACTORIES,
  TEXT_GENERATOR_FACTORIES,
  contentStorageFactoryOf,
  embeddingGeneratorFactoryOf,
  memoryDbFactory,
  queueFactoryOf,
  textGeneratorFactoryOf,
} from './connectors.js';
export { createMemoryFromConfig, describeAi, textGeneratorType, type MemoryFactoryOptions } from './memory-factory.js';
export { queueFactory } from './queue-factory.js';
export { ServiceMetrics } from './metrics.js';
export { openApiDocument } from './openapi.js';
export { AccessKeys } from './http/access-keys.js';
export { HttpProblem, problem, toProblem, type ProblemDetails } from './http/problem-details.js';
export { parseTags } from './http/upload-form.js';
export { createServiceLogger, toKmLogger } from './logging.js';
export { SERVICE_VERSION } from './version.js';
