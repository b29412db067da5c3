// @km/core: what applications use. Helpers for connector, handler and decoder authors are in
// @km/core/connector.

// Errors
export { KmError, IndexNotFoundError, InvalidInputError, isKmError, type KmErrorCode, type KmErrorOptions } from './errors/km-error.js';

// Models
export * from './models/constants.js';
export type { TagCollection } from './models/tag-collection.js';
export { MemoryFilter, MemoryFilters, matchesFilters, toMemoryFilters, type TagCondition } from './models/memory-filter.js';
export { PayloadFields, recordId, type MemoryRecord } from './models/memory-record.js';
export { Document, type DocumentFileSource } from './models/document.js';
export { documentFromInput } from './models/document-input.js';
export {
  isStatusReady,
  statusFailure,
  toPipelineStatus,
  type ArtifactType,
  type DataPipeline,
  type DataPipelineStatus,
  type FileDetails,
  type GeneratedFileDetails,
  type PipelineLogEntry,
  type PreviousExecution,
  type StepAttempts,
  type UploadedFileDetails,
} from './models/data-pipeline.js';
export type { Citation, CitationPartition, MemoryAnswer, SearchResult, StreamState, TokenUsage } from './models/search-models.js';
export { RequestArgs, REQUEST_ARG_SPECS, type RequestArgPhase, type RequestArgSpec, type RequestArgType } from './validation/km-args.js';

// Contracts
export type {
  HybridFusion,
  IMemoryDb,
  ListOptions,
  MemoryDbCapabilities,
  RecordTagsUpdate,
  SearchMode,
  SimilarityOptions,
} from './contracts/memory-db.js';
export type {
  DocumentFileDetails,
  DocumentFiles,
  DocumentFileSummary,
  DocumentList,
  DocumentState,
  DocumentSummary,
  DocumentTagsUpdate,
} from '@km/wire';
export {
  DEFAULT_DOCUMENT_PAGE,
  DOCUMENT_SCAN_BUDGET,
  DOCUMENT_STATES,
  listDocumentPage,
  MAX_DOCUMENT_PAGE,
  type ListDocumentsOptions,
} from './documents/list-documents.js';
export { documentStateOf, toDocumentFiles, toDocumentSummary } from './documents/document-summary.js';
export { retagDocumentRecords, withOwnTags } from './documents/retag-document-records.js';
export { SEARCH_MODES } from './contracts/memory-db.js';
export type { ITextReranker, RerankCandidate, RerankOptions, RerankResult } from './contracts/text-reranker.js';
export type { ByteRange, IContentStorage, StorageContent, StoredFileInfo } from './contracts/content-storage.js';
export type { IQueue, QueueConnectOptions, QueueDelivery, QueueHandlerResult, QueueRetryAfter } from './contracts/queue.js';
export type { EmbeddingRequestOptions, ITextEmbeddingGenerator } from './contracts/text-embedding-generator.js';
export type { ITextGenerator, TextGenerationOptions } from './contracts/text-generator.js';
export type { ITextTokenizer } from './contracts/text-tokenizer.js';
export type { IPipelineStepHandler, StepOutcome, StepResult } from './contracts/pipeline-step-handler.js';
export type { ContentSection, ExtractedContent, IContentDecoder } from './contracts/content-decoder.js';
export type {
  IKernelMemory,
  ImportInput,
  ImportOptions,
  IndexDetails,
  RetrievalOptions,
  SearchOptions,
  StreamableFileContent,
} from './contracts/kernel-memory.js';

// Names
export { normalizeIndexName, MAX_INDEX_NAME_LENGTH } from './validation/index-name.js';
export { normalizeIndexNameLogged } from './validation/normalize-index-name-logged.js';
export { validateDocumentId, newDocumentId, MAX_DOCUMENT_ID_LENGTH } from './validation/document-id.js';
export { validateFileName, MAX_FILE_NAME_LENGTH, type FileNameOptions } from './validation/file-name.js';

// Stores
export { DiskContentStorage, type DiskContentStorageOptions } from './content-storage/disk-content-storage.js';
export { MemoryContentStorage } from './content-storage/memory-content-storage.js';
export { MemoryDb, type MemoryDbOptions } from './memory-storage/memory-db.js';
export {
  SimpleVectorDb,
  type HnswIndexOptions,
  type SimpleVectorDbOptions,
  type SimpleVectorIndexOptions,
} from './memory-storage/simple-vector-db.js';
export { SimpleTextDb, type SimpleTextDbOptions } from './memory-storage/simple-text-db.js';

// AI
export {
  QueryEmbeddingCache,
  queryEmbeddingCacheOf,
  embedQuery,
  type QueryEmbeddingCacheOptions,
} from './ai/query-embedding-cache.js';
export { CL100KTokenizer } from './ai/gpt-tokenizer.js';
export { HashingEmbeddingGenerator, type HashingEmbeddingGeneratorOptions } from './ai/hashing-embedding-generator.js';
export { chunkText, type ChunkOptions } from './text-chunker/text-chunker.js';

// Memory
export { KernelMemoryBuilder, type HandlerFactory } from './kernel-memory-builder.js';
export { MemoryServerless } from './memory-serverless.js';
export { MemoryService } from './memory-service.js';
export { waitForDocumentStatus, type WaitForDocumentOptions } from './pipeline/wait-for-document.js';
export type { EmbeddingOptions, ExtractionOptions, PartitionOptions } from './pipeline/pipeline-context.js';
export type {
  OrchestratorOptions,
  PipelineFinishedEvent,
  PipelineObserver,
  PipelineRequest,
  StepFinishedEvent,
} from './pipeline/pipeline-orchestrator.js';
export { NO_MEMORIES_REASON, NOT_FOUND_REASON, type SearchClientSettings } from './search/search-client.js';
export { DEFAULT_SEARCH_OPTIONS, type SearchClientOptions } from './search/search-options.js';
export { EXTRACTIVE_PREAMBLE } from './search/extractive-answer.js';
export { defaultPromptProvider, PromptNames, type IPromptProvider } from './search/prompt-provider.js';
export { WebPageFetcher, type WebPageFetcherOptions, type IWebPageFetcher, type WebPage } from './web/web-page-fetcher.js';
export { isBlockedAddress } from './web/address-policy.js';
export { createConsoleLogger, silentLogger, type Logger, type LogLevel } from './util/logger.js';

// Queues
export { InMemoryQueue, type InMemoryQueueOptions } from './queue/in-memory-queue.js';
export { InMemoryQueueBroker } from './queue/in-memory-queue-broker.js';
export { poisonQueueName } from './queue/poison-queue-name.js';
export { FileQueue, type FileQueueOptions } from './queue/file-queue.js';
export {
  DEFAULT_STALLED_AFTER_MS,
  redriveDocuments,
  type RedrivenDocument,
  type RedriveOptions,
  type RedriveResult,
} from './pipeline/redrive.js';
export {
  DEFAULT_RETRY_BUDGET_MS,
  DEFAULT_STEP_ATTEMPTS,
  stepQueueMaxAttempts,
  type StepQueueFactory,
  type StepQueueSettings,
} from './pipeline/step-attempts.js';

// Rerankers
export { HttpTextReranker, type HttpTextRerankerOptions, type RerankProvider } from './rerank/http-reranker.js';
export { MmrReranker, type MmrRerankerOptions } from './rerank/mmr-reranker.js';
export {
  ANSWERABILITY_MODELS,
  LEXICAL_ANSWERABILITY,
  answerabilityModelFor,
  answerabilityScore,
  type AnswerabilityModel,
} from './search/answerability.js';
export { answerEvidence, EVIDENCE_PASSAGES, type AnswerEvidence, type EvidencePassage } from './search/answer-evidence.js';
export { contentTerms, questionTerms } from './search/answer-terms.js';
export { splitSentences } from './search/sentence-splitter.js';

// Tracing (OpenTelemetry, through @opentelemetry/api only)
export { KM_CORE_VERSION, KM_TRACER_NAME, tracer } from './tracing/tracer.js';
export { GenAiAttributes, KmAttributes, MessagingAttributes } from './tracing/span-attributes.js';
export { type KmSpanOptions, recordSpanError, type TracedIterableOptions, traceIterable, withSpan } from './tracing/with-span.js';
export {
  extractTraceContext,
  formatTraceparent,
  injectTraceContext,
  parseTraceparent,
  type TraceCarrier,
} from './tracing/trace-context.js';
export { traceContextOfMessage, withTraceContext } from './tracing/message-trace-context.js';

// Record definitions and the filter language of typed collections (the stores, collections, chat
// history and agent tools are @km/collections)
export { defineRecord } from './vector-store/record-definition.js';
export type {
  DataPropertyDefinition,
  DataPropertyType,
  DistanceFunction,
  KeyDefinition,
  KeyType,
  KeyValue,
  RecordDefinition,
  RecordDefinitionInput,
  RecordOf,
  RecordType,
  VectorPropertyDefinition,
  VectorValue,
} from './vector-store/record-definition-types.js';
export type { FilterOperators, VectorStoreFilter } from './vector-store/vector-store-filter-types.js';
export type {
  SyncAction,
  SyncCounts,
  SyncItem,
  SyncOptions,
  SyncProgress,
  SyncReport,
  SyncSource,
} from './sync/sync-source.js';
export { syncSource, DEFAULT_SYNC_CONCURRENCY, MAX_REPORTED_FAILURES, type SyncTarget } from './sync/sync-engine.js';
export { syncDocumentId } from './sync/sync-document-id.js';
export { folderSource, type FolderSourceOptions } from './sync/folder-source.js';
export {
  acquireSyncLease,
  isStale as isSyncLeaseStale,
  syncLeaseFileName,
  SYNC_LEASE_FOLDER,
  SYNC_LEASE_RENEW_MS,
  SYNC_LEASE_TTL_MS,
  type SyncLease,
  type SyncLeaseOptions,
  type SyncLeaseRecord,
} from './sync/sync-lease.js';
export { siteSource, SITE_MAX_PAGES_LIMIT, type SiteSourceOptions } from './sync/site-source.js';
export type { UrlPattern } from './sync/site/crawl-scope.js';
