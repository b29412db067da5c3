// @km/core/connector: what authors of connectors (memory DBs, queues, storages, AI providers),
// pipeline handlers and decoders need, and applications do not. See the root README, "Write a
// connector".

// Memory DB drivers
export {
  DEFAULT_CAPABILITIES,
  driverCapabilities,
  indexNameLimit,
  type DriverLexicalSearch,
  type DriverList,
  type DriverSearch,
  type MemoryDbDriver,
} from './memory-storage/memory-db-driver.js';
export { checkRecord, checkVectorRecord, checkBatchForIndex, type CheckedRecord } from './memory-storage/record-input.js';
export { compareRecordIds, rankResults } from './memory-storage/result-order.js';
export { searchLimit } from './memory-storage/search-limit.js';
export { resolveQueryVector } from './memory-storage/query-vector.js';
export { upsertRecords, listRecordIds } from './memory-storage/memory-db-operations.js';
export { cosineSimilarity, normalize, l2norm, checkVector } from './memory-storage/vector-math.js';
export { documentIdsOf, isRecordLossSource, type RecordLoss, type RecordLossSource } from './memory-storage/record-loss.js';
export { encodeTag, encodeTags, decodeTags } from './models/tag-encoding.js';
export {
  addTag,
  cloneTags,
  mergeTags,
  parseTag,
  tagPairs,
  validateTagKey,
  validateTagValue,
  validateTags,
} from './models/tag-collection.js';
export { matchesCondition } from './models/memory-filter.js';
export { unstorableTextReason } from './validation/unstorable-text.js';
export { indexNamesUnderPrefix, isNormalizedIndexName } from './validation/index-name.js';
export { uploadedNameOf } from './validation/file-name.js';
export {
  MAX_PATH_SEGMENT_BYTES,
  MAX_DOCUMENT_ID_BYTES,
  MAX_FILE_NAME_BYTES,
  DERIVED_FILE_SUFFIX_BYTES,
  utf8Length,
} from './validation/name-limits.js';

// Retries and timing
export { BackoffPolicy, type BackoffJitter, type BackoffOptions } from './retry/backoff-policy.js';
export { withRetries, isTransient, type WithRetriesOptions } from './retry/with-retries.js';
export { parseRetryAfterMs, type HeaderReader } from './retry/retry-after.js';
export {
  connectorBackoff,
  DEFAULT_CONNECTOR_RETRY,
  isRetryableHttpStatus,
  resolveRetryOptions,
  withConnectorRetries,
  type ConnectorRetriesOptions,
  type ConnectorRetryOptions,
} from './retry/connector-retries.js';
export { ConnectionKeeper, type ConnectionKeeperOptions, type ConnectionUseOptions } from './retry/connection-keeper.js';
export { withTimeout } from './util/timeout.js';
export { mapWithConcurrency, batches } from './util/concurrency.js';
export { operationSignal, type OperationSignal } from './util/operation-signal.js';

// AI providers
export { BpeTokenizer, loadGptEncoding, PLAIN_TEXT_ENCODING, type BpeEncoding } from './ai/gpt-tokenizer.js';

// Pipeline handlers and orchestrators
export type { PipelineContext } from './pipeline/pipeline-context.js';
export {
  failedFilesOf,
  failedFilesReason,
  isPipelineComplete,
  logOnFile,
} from './models/data-pipeline.js';
export { pendingFiles, markProcessed } from './handlers/handler-utils.js';
export { stableId, contentHash, generatedFilesOf, writeGeneratedFile, readTextFile } from './pipeline/pipeline-files.js';
export { createDefaultHandlers } from './handlers/default-handlers.js';
export { TextExtractionHandler } from './handlers/text-extraction-handler.js';
export { TextPartitioningHandler } from './handlers/text-partitioning-handler.js';
export { GenerateEmbeddingsHandler } from './handlers/generate-embeddings-handler.js';
export { SaveRecordsHandler } from './handlers/save-records-handler.js';
export { SummarizationHandler } from './handlers/summarization-handler.js';
export { DeleteGeneratedFilesHandler } from './handlers/delete-generated-files-handler.js';
export { DeleteDocumentHandler } from './handlers/delete-document-handler.js';
export { DeleteIndexHandler } from './handlers/delete-index-handler.js';
export { InProcessPipelineOrchestrator } from './pipeline/in-process-orchestrator.js';
export { BasePipelineOrchestrator, newExecutionId, type PipelineOrchestrator } from './pipeline/pipeline-orchestrator.js';
export {
  DistributedPipelineOrchestrator,
  type DistributedOrchestratorOptions,
  type OrchestratorStartOptions,
  type PipelinePointer,
} from './pipeline/distributed-orchestrator.js';
export { PipelineStatusStore } from './pipeline/pipeline-status-store.js';
export { checkIndexNameFits } from './pipeline/check-index-name-fits.js';
export {
  checkEmbeddingModelName,
  checkIngestionArgs,
  checkRetrievalArgs,
  readIngestionArgs,
  type IngestionArgs,
  type RetrievalArgs,
} from './validation/km-args.js';

// Search and prompts
export { SearchClient, type RetrievalRequest } from './search/search-client.js';
export { ANSWER_PROMPT, SUMMARY_PROMPT, FACT_TEMPLATE } from './search/prompts.js';
export { renderFact, type FactFields } from './search/fact-template.js';

// Decoders and file types
export { DecoderRegistry } from './decoders/decoder-registry.js';
export { PlainTextDecoder } from './decoders/plain-text-decoder.js';
export { MarkdownDecoder } from './decoders/markdown-decoder.js';
export { HtmlDecoder, htmlToMarkdown } from './decoders/html-decoder.js';
export { JsonDecoder } from './decoders/json-decoder.js';
export { mimeTypeOf, registerMimeType, baseMimeType, extensionOfMimeType } from './decoders/mime-types.js';
export {
  detectFileType,
  sniffContent,
  FILE_TYPE_HEAD_BYTES,
  type FileTypeEvidence,
  type SniffedContent,
} from './decoders/detect-file-type.js';
export { missingDecoderReason } from './decoders/missing-decoder.js';
export { sniffMimeType } from './web/sniff-mime-type.js';

// Content storage: the rules every storage shares
export { checkStorageNames } from './content-storage/storage-names.js';
export { StoragePaths } from './content-storage/storage-paths.js';
export { writeConflict } from './content-storage/write-conflict.js';
export { contentToBuffer, contentToReadable } from './util/streams.js';

// Factories: how hosts build connectors from configuration
export type {
  ConnectorFactory,
  ConnectorSetting,
  ConnectorSettings,
  ContentStorageFactory,
  EmbeddingGeneratorFactory,
  FactoryContext,
  MemoryDbFactory,
  QueueFactory,
  QueueFactoryContext,
  TextGeneratorFactory,
} from './factories/connector-factory.js';
export { queueConsumerOptions, settingsAsOptions } from './factories/connector-factory.js';
export { readSettings, settingsFromEnv, type SettingsSource } from './factories/read-settings.js';
export {
  checkKmPlugin,
  KM_PLUGIN_EXPORT,
  KM_PLUGIN_KINDS,
  pluginFactories,
  type KmPlugin,
  type KmPluginKind,
} from './factories/km-plugin.js';

// Errors of the network (a connector's transient errors)
export { NETWORK_ERROR_CODES, isNetworkError, isNetworkErrorCode } from './errors/network-errors.js';

// Queues
export { TransportQueue, type QueueConsumerOptions } from './queue/transport-queue.js';
export type {
  QueueTransport,
  QueueTransportCapabilities,
  QueueConsumerDefaults,
  TransportMessage,
  TransportOpenOptions,
} from './queue/queue-transport.js';
export { LeaseRenewal } from './queue/lease-renewal.js';
export { poisonQueueName } from './queue/poison-queue-name.js';
export { checkQueueConnect, type QueueClientState } from './queue/connect-checks.js';
export { fileQueueFactory, memoryQueueFactory } from './factories/queue-factories.js';

// Lexical and hybrid search
export { Bm25Index, type Bm25IndexOptions, type Bm25SearchOptions } from './text-search/bm25-index.js';
export { tokenize, foldText } from './text-search/tokenizer.js';
export { checkFusion, fuseRankings, type FusedHit, type ResolvedFusion } from './memory-storage/hybrid-fusion.js';

// Typed vector-store drivers: the seam, the checked filter, the reference semantics
export type {
  DriverLexicalQuery,
  DriverRecordQuery,
  DriverVectorQuery,
  StorageRecord,
  VectorStoreDriver,
} from './vector-store/vector-store-driver.js';
export type { FilterNode, FilterOperator, FilterProperty, FilterScalar } from './vector-store/vector-store-filter-types.js';
export type {
  ResolvedDataProperty,
  ResolvedKeyProperty,
  ResolvedVectorProperty,
} from './vector-store/record-definition-types.js';
export {
  DATA_PROPERTY_TYPES,
  DISTANCE_FUNCTIONS,
  KEY_TYPES,
  MAX_STORAGE_NAME_LENGTH,
  MAX_VECTOR_DIMENSIONS,
} from './vector-store/record-definition.js';
export {
  compileFilter,
  filterOperatorsOf,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_IN_VALUES,
} from './vector-store/filter-compiler.js';
export { matchesFilter } from './vector-store/filter-evaluator.js';
export { unsupportedFilter } from './vector-store/unsupported-filter.js';
export { isBetter, passesMinScore, vectorScore } from './vector-store/vector-score.js';
export { checkVectorValue, fromStorageRecord, storedKey, toStorageRecord, type MappedRecord } from './vector-store/record-mapping.js';
export { checkKey, keyProblem, MAX_STRING_KEY_BYTES } from './vector-store/record-key.js';
export { toDateValue } from './vector-store/date-value.js';
export {
  checkCollectionName,
  collectionNamesUnderPrefix,
  isCollectionName,
  MAX_COLLECTION_NAME_LENGTH,
} from './vector-store/collection-name.js';
export { checkDefinitionSupported } from './vector-store/definition-support.js';
export { FILTER_OPERATORS } from './vector-store/filter-operators.js';
export { SimpleVectorStoreDriver, type SimpleVectorStoreDriverOptions } from './vector-store/simple/simple-vector-store-driver.js';
export { callDriver, throwIfAborted, toKmError } from './vector-store/driver-call.js';
export { VectorStoreMemoryDbDriver } from './memory-storage/vector-store-memory-db-driver.js';
export {
  DEFAULT_KM_STORAGE_NAMES,
  KmRecordLayout,
  type KmRecordLayoutOptions,
  type KmStorageNames,
} from './memory-storage/km-record-layout.js';
export { compareKeys, compareValues, queryOrder, recordOrder } from './vector-store/record-order.js';
