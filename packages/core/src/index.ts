// Errors
export { KmError, IndexNotFoundError, InvalidInputError, isKmError, type KmErrorCode, type KmErrorOptions } from './errors/km-error.js';

// Models
export * from './models/constants.js';
export {
  addTag,
  cloneTags,
  mergeTags,
  parseTag,
  tagPairs,
  validateTagKey,
  validateTagValue,
  validateTags,
  type TagCollection,
} from './models/tag-collection.js';
export { encodeTag, encodeTags, decodeTags } from './models/tag-encoding.js';
export {
  MemoryFilter,
  MemoryFilters,
  matchesCondition,
  matchesFilters,
  toMemoryFilters,
  type TagCondition,
} from './models/memory-filter.js';
export { PayloadFields, recordId, unstorableTextReason, type MemoryRecord } from './models/memory-record.js';
export { Document, type DocumentFileSource } from './models/document.js';
export { documentFromInput } from './models/document-input.js';
export {
  failedFilesOf,
  failedFilesReason,
  isPipelineComplete,
  isStatusReady,
  logOnFile,
  statusFailure,
  toPipelineStatus,
  type ArtifactType,
  type DataPipeline,
  type DataPipelineStatus,
  type FileDetails,
  type GeneratedFileDetails,
  type PipelineLogEntry,
  type PreviousExecution,
  type UploadedFileDetails,
} from './models/data-pipeline.js';
export type { Citation, CitationPartition, MemoryAnswer, SearchResult, StreamState, TokenUsage } from './models/search-models.js';

// Contracts
export type { IMemoryDb, ListOptions, MemoryDbCapabilities, SimilarityOptions } from './contracts/memory-db.js';
export type { ByteRange, IContentStorage, StorageContent, StoredFileInfo } from './contracts/content-storage.js';
export type { IQueue, QueueConnectOptions, QueueHandlerResult } from './contracts/queue.js';
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

// Validation
export { normalizeIndexName, isNormalizedIndexName, indexNamesUnderPrefix, MAX_INDEX_NAME_LENGTH } from './validation/index-name.js';
export { validateDocumentId, newDocumentId, MAX_DOCUMENT_ID_LENGTH } from './validation/document-id.js';
export { validateFileName, uploadedNameOf, MAX_FILE_NAME_LENGTH, type FileNameOptions } from './validation/file-name.js';
export {
  MAX_PATH_SEGMENT_BYTES,
  MAX_DOCUMENT_ID_BYTES,
  MAX_FILE_NAME_BYTES,
  DERIVED_FILE_SUFFIX_BYTES,
  utf8Length,
} from './validation/name-limits.js';

// Content storage
export { DiskContentStorage, type DiskContentStorageOptions } from './content-storage/disk-content-storage.js';
export { MemoryContentStorage } from './content-storage/memory-content-storage.js';

// Memory storage
export { SimpleVectorDb, type SimpleVectorDbOptions } from './memory-storage/simple-vector-db.js';
export { SimpleTextDb, type SimpleTextDbOptions } from './memory-storage/simple-text-db.js';
export { upsertRecords, listRecordIds } from './memory-storage/memory-db-operations.js';
export { cosineSimilarity, normalize, l2norm, checkVector } from './memory-storage/vector-math.js';
export { checkRecord, checkVectorRecord, checkBatchForIndex, type CheckedRecord } from './memory-storage/record-input.js';
export { compareRecordIds, rankResults } from './memory-storage/result-order.js';
export { searchLimit } from './memory-storage/search-limit.js';
export { resolveQueryVector } from './memory-storage/query-vector.js';
export { documentIdsOf, isRecordLossSource, type RecordLoss, type RecordLossSource } from './memory-storage/record-loss.js';

// AI
export { BpeTokenizer, CL100KTokenizer, PLAIN_TEXT_ENCODING, type BpeEncoding } from './ai/gpt-tokenizer.js';
export { DefaultEmbeddingGenerator, LOCAL_MODEL_PACKAGE, type DefaultEmbeddingGeneratorOptions } from './ai/default-embedding-generator.js';
export { HashingEmbeddingGenerator, type HashingEmbeddingGeneratorOptions } from './ai/hashing-embedding-generator.js';

// Decoders
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
export { checkIndexNameFits } from './pipeline/check-index-name-fits.js';

// Chunking
export { chunkText, type ChunkOptions } from './text-chunker/text-chunker.js';

// Pipeline
export type { PipelineContext, PartitionOptions, EmbeddingOptions, ExtractionOptions } from './pipeline/pipeline-context.js';
export { InProcessPipelineOrchestrator } from './pipeline/in-process-orchestrator.js';
export {
  BasePipelineOrchestrator,
  newExecutionId,
  type OrchestratorOptions,
  type PipelineRequest,
  type PipelineOrchestrator,
  type PipelineObserver,
  type StepFinishedEvent,
  type PipelineFinishedEvent,
} from './pipeline/pipeline-orchestrator.js';
export {
  DistributedPipelineOrchestrator,
  type DistributedOrchestratorOptions,
  type OrchestratorStartOptions,
  type PipelinePointer,
} from './pipeline/distributed-orchestrator.js';
export { PipelineStatusStore } from './pipeline/pipeline-status-store.js';
export { stableId, contentHash, generatedFilesOf, writeGeneratedFile, readTextFile } from './pipeline/pipeline-files.js';
export { pendingFiles, markProcessed } from './handlers/handler-utils.js';
export { createDefaultHandlers } from './handlers/default-handlers.js';
export { TextExtractionHandler } from './handlers/text-extraction-handler.js';
export { TextPartitioningHandler } from './handlers/text-partitioning-handler.js';
export { GenerateEmbeddingsHandler } from './handlers/generate-embeddings-handler.js';
export { SaveRecordsHandler } from './handlers/save-records-handler.js';
export { SummarizationHandler } from './handlers/summarization-handler.js';
export { DeleteGeneratedFilesHandler } from './handlers/delete-generated-files-handler.js';
export { DeleteDocumentHandler } from './handlers/delete-document-handler.js';
export { DeleteIndexHandler } from './handlers/delete-index-handler.js';

// Search and ask
export { SearchClient, NO_MEMORIES_REASON, NOT_FOUND_REASON, type RetrievalRequest } from './search/search-client.js';
export { DEFAULT_SEARCH_OPTIONS, type SearchClientOptions } from './search/search-options.js';
export { EXTRACTIVE_PREAMBLE } from './search/extractive-answer.js';
export { defaultPromptProvider, PromptNames, type IPromptProvider } from './search/prompt-provider.js';
export { ANSWER_PROMPT, SUMMARY_PROMPT, FACT_TEMPLATE } from './search/prompts.js';
export { renderFact, type FactFields } from './search/fact-template.js';
export {
  checkEmbeddingModelName,
  checkIngestionArgs,
  checkRetrievalArgs,
  readIngestionArgs,
  RequestArgs,
  REQUEST_ARG_SPECS,
  type IngestionArgs,
  type RequestArgPhase,
  type RequestArgSpec,
  type RequestArgType,
  type RetrievalArgs,
} from './models/request-args.js';

// Web
export {
  WebPageFetcher,
  BasicWebPageFetcher,
  type WebPageFetcherOptions,
  type BasicWebPageFetcherOptions,
  type IWebPageFetcher,
  type WebPage,
} from './web/web-page-fetcher.js';
export { isBlockedAddress } from './web/address-policy.js';
export { sniffMimeType } from './web/sniff-mime-type.js';

// Memory
export { MemoryServerless } from './memory-serverless.js';
export { waitForDocumentStatus, type WaitForDocumentOptions } from './pipeline/wait-for-document.js';
export { MemoryService } from './memory-service.js';
export { KernelMemoryBuilder, type HandlerFactory } from './kernel-memory-builder.js';
export { mapWithConcurrency, batches } from './util/concurrency.js';
export { withTimeout } from './util/timeout.js';
export { operationSignal, type OperationSignal } from './util/operation-signal.js';
export { createConsoleLogger, silentLogger, type Logger, type LogLevel } from './util/logger.js';

// Queues
export { InMemoryQueue, type InMemoryQueueOptions } from './queue/in-memory-queue.js';
export { InMemoryQueueBroker } from './queue/in-memory-queue-broker.js';
export { poisonQueueName } from './queue/poison-queue-name.js';
export { FileQueue, type FileQueueOptions } from './queue/file-queue.js';
export { checkQueueConnect, type QueueClientState } from './queue/connect-checks.js';
export {
  DEFAULT_STEP_ATTEMPTS,
  stepQueueMaxAttempts,
  type QueueFactory,
  type StepQueueSettings,
} from './pipeline/step-attempts.js';
