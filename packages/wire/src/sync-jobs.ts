import type { TagCollection } from './tag-collection.js';

/** A folder on the service's disk, under one of its `KM_SYNC_ROOTS`. */
export interface FolderSyncSourceRequest {
  type: 'folder';
  /** Absolute, or relative to the service's working directory; must resolve inside a sync root. */
  path: string;
  /** Globs of the files to sync (`**\/*.md`); default every file. */
  include?: string[];
  /** Globs of the files to leave out. */
  exclude?: string[];
}

/** A web site: its sitemap, or the pages linked under the start URL. */
export interface WebSyncSourceRequest {
  type: 'web';
  /** The start URL; the crawl stays under its origin and path. */
  url: string;
  /** `true`: `<origin>/sitemap.xml` (and robots.txt's `Sitemap:` lines); a URL: that sitemap. */
  sitemap?: boolean | string;
  /** Most pages listed. */
  maxPages?: number;
}

/** An S3 bucket prefix, read with the service's S3 settings (when the service supports it). */
export interface S3SyncSourceRequest {
  type: 's3';
  bucket: string;
  prefix?: string;
}

/** An Azure Blob container prefix, read with the service's Azure settings (when the service supports it). */
export interface AzureBlobSyncSourceRequest {
  type: 'azure-blob';
  container: string;
  prefix?: string;
}

/** Where a sync job reads from. */
export type SyncSourceRequest = FolderSyncSourceRequest | WebSyncSourceRequest | S3SyncSourceRequest | AzureBlobSyncSourceRequest;

/** Body of `POST /sync`. */
export interface SyncRequest {
  /** Target index; empty means `default`. */
  index?: string;
  /** Tags given to every synced document (`__` keys are reserved). */
  tags?: TagCollection;
  /** Delete the documents of items the source no longer lists. @default true */
  deleteMissing?: boolean;
  /** Items ingested at once, 1 to 32. @default 4 */
  concurrency?: number;
  source: SyncSourceRequest;
}

/**
 * Where a sync job stands. `failed`: the sync could not run, or its listing did not complete
 * (nothing was deleted; see `error` and `report`).
 */
export type SyncJobState = 'running' | 'completed' | 'failed' | 'cancelled';

/** Counts of a sync, so far or final. */
export interface SyncJobCounts {
  /** Items the source listed. */
  listed: number;
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
}

/** What a finished sync did (core's `SyncReport`). */
export interface SyncJobReport extends SyncJobCounts {
  source: string;
  kind: string;
  index: string;
  /** The items that failed, with their reasons (at most 100; `failed` counts them all). */
  failures: Array<{ itemId: string; documentId?: string; error: string }>;
  /** False when the listing did not complete (or the sync was aborted): nothing was deleted. */
  complete: boolean;
  startedAt: string;
  durationMs: number;
}

/** A sync job of the service: `POST /sync` starts it, `GET /sync/{jobId}` follows it. */
export interface SyncJob {
  jobId: string;
  status: SyncJobState;
  index: string;
  /** The source as requested. */
  source: SyncSourceRequest;
  /** The source's id (`folder:/abs/path`, `https://site/`…): documents synced from it carry it. */
  sourceId: string;
  /** `listing`, `ingesting`, `deleting` or `done`: the step the sync is at. */
  phase: 'listing' | 'ingesting' | 'deleting' | 'done';
  /** Counts so far; the report's once finished. */
  counts: SyncJobCounts;
  /** When it started and finished (ISO 8601). */
  startedAt: string;
  finishedAt?: string;
  /** The sync's report, once it finished (also when cancelled part-way, if the engine gave one). */
  report?: SyncJobReport;
  /** Why it failed or was cancelled. */
  error?: string;
  /** The km error code of a failure (`sync_busy`, `invalid_argument`…). */
  errorCode?: string;
}

/** Answer of `GET /sync`: recent jobs, newest first (running ones always included). */
export interface SyncJobList {
  jobs: SyncJob[];
}
