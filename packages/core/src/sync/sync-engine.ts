import type { DocumentState } from '@km/wire';
import { listDocumentPage, MAX_DOCUMENT_PAGE } from '../documents/list-documents.js';
import { KmError } from '../errors/km-error.js';
import { ReservedTags } from '../models/constants.js';
import { toPipelineStatus } from '../models/data-pipeline.js';
import { Document } from '../models/document.js';
import { MemoryFilters } from '../models/memory-filter.js';
import { addTag, type TagCollection } from '../models/tag-collection.js';
import type { PipelineOrchestrator } from '../pipeline/pipeline-orchestrator.js';
import { waitForDocumentStatus } from '../pipeline/wait-for-document.js';
import { pollUntil } from '../util/poll-until.js';
import { syncDocumentId } from './sync-document-id.js';
import type { SyncAction, SyncCounts, SyncItem, SyncOptions, SyncProgress, SyncReport, SyncSource } from './sync-source.js';

/** Most failures a report lists (`failed` counts them all). */
export const MAX_REPORTED_FAILURES = 100;
/** Items ingested at once when the options name no number. */
export const DEFAULT_SYNC_CONCURRENCY = 4;
/** How long a queued import (or deletion) is waited for before its item counts as failed. */
const QUEUED_IMPORT_TIMEOUT_MS = 3_600_000;

/** What the engine needs of a memory: its orchestrator and the (normalised) index to sync into. */
export interface SyncTarget {
  orchestrator: PipelineOrchestrator;
  /** The index, already normalised and checked. */
  index: string;
  /**
   * True when `importDocument` returns once the document is queued (a distributed
   * orchestrator): the engine then waits for each document to be ready, and a document found
   * `in_progress` at its version counts as unchanged (a queue runs it). @default false
   */
  queued?: boolean;
}

/** A document the index holds for the source. */
interface HeldDocument {
  documentId: string;
  itemId: string | undefined;
  version: string | undefined;
  state: DocumentState;
}

/**
 * Makes the index hold exactly the source's items: lists them, compares each with the document
 * the index holds for it (by `__sync_source`/`__sync_item`/`__sync_version` tags and state,
 * read through the document listing), imports new, changed and failed ones (at most
 * `concurrency` at once, through the orchestrator, waiting for queued ones to be ready), then,
 * after a complete listing and with `deleteMissing`, deletes the documents of items no longer
 * listed. Takes no lease: `memory.sync()` holds one around it.
 *
 * Never throws for an item or a listing: an item that cannot be read or ingested is counted
 * `failed` (with its reason in `failures`) and the others go on; a listing that throws stops
 * the sync with `complete: false`, deletes nothing, and is reported in `failures` with an
 * empty `itemId` (not counted in `failed`, which counts items). An abort (`signal`) starts no
 * more imports, waits for those running, deletes nothing and returns `complete: false`.
 * Idempotent: run again after a crash, it re-imports what was left half done.
 */
export async function syncSource(target: SyncTarget, source: SyncSource, options: SyncOptions = {}): Promise<SyncReport> {
  const { orchestrator, index } = target;
  const queued = target.queued ?? false;
  const started = Date.now();
  const concurrency = options.concurrency ?? DEFAULT_SYNC_CONCURRENCY;
  const signal = options.signal;
  const counts: SyncCounts = { listed: 0, added: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 };
  const failures: SyncReport['failures'] = [];
  const progress = (event: Omit<SyncProgress, 'counts'>): void => {
    try {
      options.onProgress?.({ ...event, counts: { ...counts } });
    } catch {
      // A progress callback must not throw; if it does, the sync goes on.
    }
  };
  const fail = (itemId: string, documentId: string | undefined, error: unknown, phase: SyncProgress['phase'] = 'ingesting'): void => {
    const message = error instanceof Error ? error.message : String(error);
    if (itemId !== '') counts.failed++;
    if (failures.length < MAX_REPORTED_FAILURES)
      failures.push({ itemId, ...(documentId !== undefined ? { documentId } : {}), error: message });
    progress({
      phase: itemId === '' ? 'listing' : phase,
      itemId,
      ...(documentId !== undefined ? { documentId } : {}),
      action: 'failed',
      error: message,
    });
  };

  progress({ phase: 'listing' });
  let complete = true;
  const held = new Map<string, HeldDocument>();
  try {
    for (const doc of await heldDocuments(target, source.id)) held.set(doc.documentId, doc);
  } catch (error) {
    fail('', undefined, new Error(`could not read the documents the index holds for the source: ${(error as Error).message}`));
    return report(false);
  }

  const seen = new Set<string>();
  const running = new Set<Promise<void>>();
  const ingest = async (item: SyncItem, documentId: string, action: 'added' | 'updated'): Promise<void> => {
    try {
      await importItem(target, source, item, documentId, options);
      if (queued) await waitUntilReady(target, documentId, signal);
      counts[action]++;
      progress({ phase: 'ingesting', itemId: item.id, documentId, action });
    } catch (error) {
      fail(item.id, documentId, error);
    }
  };

  try {
    for await (const item of source.list(signal)) {
      if (signal?.aborted) break;
      counts.listed++;
      const problem = invalidItem(item);
      if (problem !== undefined) {
        fail(typeof item?.id === 'string' ? item.id : String(item?.id), undefined, new Error(problem));
        continue;
      }
      const documentId = syncDocumentId(source.id, item.id);
      if (seen.has(documentId)) {
        fail(item.id, documentId, new Error(`item "${item.id}" was listed twice by the source`));
        continue;
      }
      seen.add(documentId);
      const action = decide(held.get(documentId), item, queued);
      if (action === 'unchanged') {
        counts.unchanged++;
        progress({ phase: 'ingesting', itemId: item.id, documentId, action });
        continue;
      }
      while (running.size >= concurrency) await Promise.race(running);
      if (signal?.aborted) break;
      const task = ingest(item, documentId, action).finally(() => running.delete(task));
      running.add(task);
    }
  } catch (error) {
    if (!signal?.aborted) fail('', undefined, new Error(`the listing of source "${source.id}" failed: ${(error as Error).message}`));
    complete = false;
  }
  await Promise.all(running);
  if (signal?.aborted) complete = false;

  if (complete && (options.deleteMissing ?? true)) {
    const missing = [...held.values()].filter((doc) => !seen.has(doc.documentId));
    for (let i = 0; i < missing.length && !signal?.aborted; i += concurrency) {
      await Promise.all(
        missing.slice(i, i + concurrency).map(async (doc) => {
          try {
            await orchestrator.deleteDocument(index, doc.documentId);
            if (queued) await waitUntilDeleted(target, doc.documentId, signal);
            counts.deleted++;
            progress({
              phase: 'deleting',
              ...(doc.itemId !== undefined ? { itemId: doc.itemId } : {}),
              documentId: doc.documentId,
              action: 'deleted',
            });
          } catch (error) {
            fail(doc.itemId ?? doc.documentId, doc.documentId, new Error(`could not delete: ${(error as Error).message}`), 'deleting');
          }
        }),
      );
    }
    if (signal?.aborted) complete = false;
  }
  return report(complete);

  function report(isComplete: boolean): SyncReport {
    const result: SyncReport = {
      source: source.id,
      kind: source.kind,
      index,
      ...counts,
      failures,
      complete: isComplete,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    };
    progress({ phase: 'done' });
    return result;
  }
}

/** Every document of the index whose `__sync_source` tag is the source's id, paging through the listing. */
async function heldDocuments(target: SyncTarget, sourceId: string): Promise<HeldDocument[]> {
  const { orchestrator, index } = target;
  const storage = orchestrator.context.contentStorage;
  const filters = [MemoryFilters.byTag(ReservedTags.syncSource, sourceId)];
  const out: HeldDocument[] = [];
  let cursor: string | undefined;
  do {
    const page = await listDocumentPage(storage, orchestrator.statusStore, index, {
      filters,
      limit: MAX_DOCUMENT_PAGE,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    for (const doc of page.documents) {
      out.push({
        documentId: doc.documentId,
        itemId: doc.tags[ReservedTags.syncItem]?.[0] ?? undefined,
        version: doc.tags[ReservedTags.syncVersion]?.[0] ?? undefined,
        state: doc.state,
      });
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return out;
}

/**
 * What to do with a listed item: unchanged when the index holds it at the same version and
 * complete (or in progress on a queue, which runs it); otherwise ingested again (a failed
 * document, one left half done by a killed in-process run, one being deleted).
 */
function decide(held: HeldDocument | undefined, item: SyncItem, queued: boolean): Extract<SyncAction, 'added' | 'updated' | 'unchanged'> {
  if (!held) return 'added';
  if (held.version === item.version && (held.state === 'completed' || (queued && held.state === 'in_progress'))) return 'unchanged';
  return 'updated';
}

/** Why a listed item cannot be synced, or undefined. */
function invalidItem(item: SyncItem | undefined): string | undefined {
  if (!item || typeof item !== 'object') return 'the source listed an item that is not an object';
  if (typeof item.id !== 'string' || item.id === '') return 'the source listed an item without an id';
  if (typeof item.version !== 'string') return `item "${item.id}" has no version`;
  if (typeof item.fileName !== 'string' || item.fileName === '') return `item "${item.id}" has no file name`;
  if (typeof item.open !== 'function') return `item "${item.id}" cannot be opened`;
  return undefined;
}

/** Reads the item and imports it as its document, with the sync's tags, the item's and km's three sync tags. */
async function importItem(target: SyncTarget, source: SyncSource, item: SyncItem, documentId: string, options: SyncOptions): Promise<void> {
  const content = await item.open(options.signal);
  const document = new Document(documentId, options.tags);
  if (item.tags) for (const [key, values] of Object.entries(item.tags)) for (const value of values) document.addTag(key, value);
  const tags: TagCollection = document.tags;
  addTag(tags, ReservedTags.syncSource, source.id);
  addTag(tags, ReservedTags.syncItem, item.id);
  addTag(tags, ReservedTags.syncVersion, item.version);
  if (content instanceof Uint8Array) document.addBuffer(item.fileName, content, item.mimeType);
  else document.addStream(item.fileName, content, item.mimeType);
  await target.orchestrator.importDocument(target.index, document, {
    steps: options.steps,
    args: options.args,
    signal: options.signal,
  });
}

/**
 * Waits for a queued deletion to be done: a worker removes the document's records, files and
 * state, so its state reads as missing. Without this, a sync that reported a document deleted
 * could leave it searchable until some worker ran the deletion (in `km sync`'s local mode, the
 * next km command). Rejects with `pipeline_failed` when the deletion failed, `aborted` when it
 * was not done in time.
 */
async function waitUntilDeleted(target: SyncTarget, documentId: string, signal: AbortSignal | undefined): Promise<void> {
  const { orchestrator, index } = target;
  await pollUntil(
    async () => {
      const pipeline = await orchestrator.statusStore.read(index, documentId);
      if (!pipeline) return true;
      if (pipeline.failed) throw new KmError('pipeline_failed', `the deletion of "${documentId}" failed`);
      return undefined;
    },
    () => new KmError('aborted', `the deletion of "${documentId}" was not done in time`),
    { timeoutMs: QUEUED_IMPORT_TIMEOUT_MS, intervalMs: 200, ...(signal ? { signal } : {}) },
  );
}

/** Waits for a queued document to be ready; rejects with `pipeline_failed` when it failed. */
async function waitUntilReady(target: SyncTarget, documentId: string, signal: AbortSignal | undefined): Promise<void> {
  const { orchestrator, index } = target;
  await waitForDocumentStatus(
    documentId,
    async () => {
      const pipeline = await orchestrator.statusStore.read(index, documentId);
      return pipeline ? toPipelineStatus(pipeline) : null;
    },
    { timeoutMs: QUEUED_IMPORT_TIMEOUT_MS, ...(signal ? { signal } : {}) },
    200,
  );
}
