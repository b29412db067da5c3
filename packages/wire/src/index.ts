export { readAnswerStream } from './answer-stream.js';
export type { DataPipelineStatus, FailedFile } from './data-pipeline-status.js';
export type { MemoryFilterJson } from './memory-filter-json.js';
export type { ProblemDetails } from './problem-details.js';
export type { AskRequest, RetrievalModeFields, SearchRequest } from './retrieval-requests.js';
export type { DeletionAccepted, IndexDetails, IndexList, UploadAccepted } from './route-responses.js';
export type { Citation, CitationPartition, MemoryAnswer, SearchResult, StreamState, TokenUsage } from './search-models.js';
export { readServerSentEvents, SSE_DONE } from './server-sent-events.js';
export type { TagCollection } from './tag-collection.js';
export type {
  DocumentFileDetails,
  DocumentFiles,
  DocumentFileSummary,
  DocumentList,
  DocumentState,
  DocumentSummary,
  DocumentTagsUpdate,
} from './document-list.js';
export type {
  AzureBlobSyncSourceRequest,
  FolderSyncSourceRequest,
  S3SyncSourceRequest,
  SyncJob,
  SyncJobCounts,
  SyncJobList,
  SyncJobReport,
  SyncJobState,
  SyncRequest,
  SyncSourceRequest,
  WebSyncSourceRequest,
} from './sync-jobs.js';
