export { MemoryWebClient, type MemoryWebClientOptions, type WaitOptions } from './memory-web-client.js';
export { MemoryWebClientError, toClientError } from './errors.js';
export type { DocumentListOptions } from './document-list-query.js';
export type { WaitForSyncOptions } from './wait-for-sync.js';
export type { SyncJob, SyncJobList, SyncRequest, SyncSourceRequest } from '@km/wire';
// The server-sent events reader is @km/wire's (browser-safe); re-exported for existing imports.
export { readAnswerStream, readServerSentEvents } from '@km/wire';
