export { describeMemoryDb } from './memory-db/describe-memory-db.js';
export type { MemoryDbSuiteCapabilities, MemoryDbSuiteOptions } from './memory-db/memory-db-suite-options.js';
export { FILTER_CASES, FILTER_SEED } from './memory-db/filter-cases.js';
export { describeContentStorage, type ContentStorageSuiteOptions } from './content-storage/describe-content-storage.js';
export { describeQueue, type QueueSuiteOptions, type QueueSuiteSettings } from './queue/describe-queue.js';
export { describeEmbeddingGenerator, type EmbeddingGeneratorSuiteOptions } from './ai/describe-embedding-generator.js';
export { describeTextGenerator, type TextGeneratorSuiteOptions } from './ai/describe-text-generator.js';
export { collect, eventually, randomName } from './util/async.js';
export { startTcpProxy, type TcpProxy } from './util/tcp-proxy.js';
