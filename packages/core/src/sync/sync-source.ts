import type { Readable } from 'node:stream';
import type { SyncJobCounts, SyncJobReport } from '@km/wire';
import type { TagCollection } from '../models/tag-collection.js';

/**
 * One item of a sync source as its listing gives it: what identifies it, what says it changed,
 * and how to read it. Only items that are new or changed are opened.
 */
export interface SyncItem {
  /**
   * Stable id of the item inside its source: a path relative to the folder (`/` separators), an
   * object key under the prefix, a page URL. The same item has the same id on every run.
   */
  id: string;
  /**
   * Changes whenever the content changes and only then, as far as the source can tell: a
   * content hash, an ETag, a generation, a modification time. Compared as an opaque string.
   */
  version: string;
  /** File name of the item's document, with its extension (the pipeline detects the type from it). */
  fileName: string;
  /** MIME type when the source knows it; otherwise detected from the name and content. */
  mimeType?: string;
  /** The item's own tags (besides km's sync tags and the sync's tags). */
  tags?: TagCollection;
  /** Reads the item's content. */
  open(signal?: AbortSignal): Promise<Uint8Array | Readable>;
}

/**
 * Where a sync reads from: a folder, a bucket prefix, a site. A source lists every item it holds;
 * the sync engine (`syncSource`) compares them with the documents the index holds for the same
 * source id, ingests new and changed items and deletes the documents of items that are gone.
 *
 * ```ts
 * const report = await memory.sync(folderSource({ root: './docs', include: ['**\/*.md'] }));
 * ```
 */
export interface SyncSource {
  /**
   * Names the source across runs (`folder:/abs/path`, `s3://bucket/prefix`, `https://site/`):
   * documents synced from it carry this id, and a sync deletes only documents of its own source.
   */
  readonly id: string;
  /** What the source is, for reports and logs: `folder`, `s3`, `azure-blob`, `web`, or a plugin's own kind. */
  readonly kind: string;
  /**
   * Every item of the source. Throws when the listing cannot be completed: a sync whose listing
   * failed deletes nothing. An id listed twice is an error of the source.
   */
  list(signal?: AbortSignal): AsyncIterable<SyncItem>;
  /**
   * Optional (watch mode): calls `onChange` when items may have changed, at most about once per
   * burst of changes; resolves, once watching has started, with a function that stops watching.
   */
  watch?(onChange: () => void, signal?: AbortSignal): Promise<() => Promise<void>>;
  /** Releases what the source holds (clients, watchers). */
  close?(): Promise<void>;
}

/** What a sync did to one item. */
export type SyncAction = 'added' | 'updated' | 'unchanged' | 'deleted' | 'failed';

/** A step of a sync, for progress output. */
export interface SyncProgress {
  phase: 'listing' | 'ingesting' | 'deleting' | 'done';
  /** The item (source id) or document this event is about, when it is about one. */
  itemId?: string;
  documentId?: string;
  action?: SyncAction;
  /** Counts so far. */
  counts: SyncCounts;
  /** The reason of a `failed` action. */
  error?: string;
}

/** Counts of a sync (the type is @km/wire's, shared with the service's sync jobs). */
export type SyncCounts = SyncJobCounts;

/**
 * What a sync did (the type is @km/wire's `SyncJobReport`): the counts, the failures (at most
 * 100; `failed` counts them all), and `complete: false` when the listing did not complete or the
 * sync was aborted (then nothing was deleted).
 */
export type SyncReport = SyncJobReport;

/** Options of `memory.sync(source, options)`. */
export interface SyncOptions {
  /** Target index; normalised; empty means `default`. */
  index?: string;
  /** Tags added to every document of the sync (user tags; `__` keys are refused). */
  tags?: TagCollection;
  /** Delete the documents of items the source no longer lists. @default true */
  deleteMissing?: boolean;
  /** Items ingested at once. @default 4 */
  concurrency?: number;
  /** Pipeline steps and handler arguments of the imports, as in `importDocument`. */
  steps?: string[];
  args?: Record<string, unknown>;
  /**
   * When another sync of the same source into the same index holds its lease: wait up to this
   * many milliseconds for it, then fail with `sync_busy`. @default 0 (fail at once)
   */
  waitForLeaseMs?: number;
  /** Called at each step, e.g. to draw progress. Must not throw. */
  onProgress?: (progress: SyncProgress) => void;
  signal?: AbortSignal;
}
