import type { DocumentList, DocumentState, DocumentSummary } from '@km/wire';
import type { IContentStorage } from '../contracts/content-storage.js';
import { InvalidInputError, isKmError } from '../errors/km-error.js';
import { ReservedTags } from '../models/constants.js';
import { matchesFilters, type MemoryFilter } from '../models/memory-filter.js';
import type { PipelineStatusStore } from '../pipeline/pipeline-status-store.js';
import { mapWithConcurrency } from '../util/concurrency.js';
import { decodeDocumentCursor, encodeDocumentCursor } from './document-cursor.js';
import { toDocumentSummary } from './document-summary.js';
import { validateDocumentId } from '../validation/document-id.js';

/** Options of a document listing. */
export interface ListDocumentsOptions {
  /** Index to list; normalised; empty means `default`. */
  index?: string;
  /** Most documents per page, 1 to {@link MAX_DOCUMENT_PAGE}. @default 100 */
  limit?: number;
  /** `nextCursor` of the previous page; absent for the first. */
  cursor?: string;
  /** Only documents whose own tags match (OR across the list, AND inside one filter; `__document_id` works too). */
  filters?: readonly MemoryFilter[];
  /** Only documents in one of these states. */
  states?: readonly DocumentState[];
}

export const DEFAULT_DOCUMENT_PAGE = 100;
export const MAX_DOCUMENT_PAGE = 1000;
/**
 * Most documents whose state one filtered page reads: a page of a rare filter may come back
 * short (even empty) with a cursor, rather than read a whole large index in one request.
 */
export const DOCUMENT_SCAN_BUDGET = 2000;
const STATE_READS_AT_ONCE = 16;
export const DOCUMENT_STATES: readonly DocumentState[] = ['completed', 'in_progress', 'failed', 'deleting'];

/**
 * One page of an index's documents in id order, from each document's pipeline state (one read
 * per document of the page, never its other files). A storage with
 * {@link IContentStorage.listDocumentsAfter} is asked for the page's ids only; others list the
 * ids once per page. Documents without a state (an upload still being stored) are not listed;
 * a document whose state is unreadable is listed as failed, with the reason.
 */
export async function listDocumentPage(
  storage: IContentStorage,
  statusStore: PipelineStatusStore,
  index: string,
  options: Omit<ListDocumentsOptions, 'index'> = {},
): Promise<DocumentList> {
  const limit = checkLimit(options.limit);
  const states = checkStates(options.states);
  const filters = options.filters ?? [];
  const filtered = filters.length > 0 || states !== undefined;
  const budget = filtered ? Math.max(DOCUMENT_SCAN_BUDGET, limit) : Number.POSITIVE_INFINITY;
  const ids = documentIds(storage, index);
  const documents: DocumentSummary[] = [];
  let after = options.cursor === undefined || options.cursor === '' ? undefined : decodeDocumentCursor(options.cursor);
  let scanned = 0;
  let more = false;
  while (documents.length < limit && scanned < budget) {
    const want = Math.min(filtered ? limit : limit - documents.length, budget - scanned);
    // One id more than wanted says whether another page follows.
    const batch = await ids.after(after, want + 1);
    const take = batch.slice(0, want);
    more = batch.length > want;
    if (take.length === 0) break;
    // A folder whose name is not a document id (left by something else) is stepped over, unread.
    const summaries = await mapWithConcurrency(take, STATE_READS_AT_ONCE, (id) =>
      isDocumentId(id) ? readSummary(statusStore, index, id) : Promise.resolve(undefined),
    );
    for (let i = 0; i < take.length; i++) {
      after = take[i];
      scanned++;
      const summary = summaries[i];
      if (summary && matches(summary, filters, states)) documents.push(summary);
      if (documents.length === limit) {
        if (i < take.length - 1) more = true;
        break;
      }
    }
    if (!more) break;
  }
  return { index, documents, nextCursor: more && after !== undefined ? encodeDocumentCursor(after) : null };
}

/** Ids after a given one: from the storage's paging call, or from one full listing kept for the page. */
function documentIds(storage: IContentStorage, index: string): { after(after: string | undefined, limit: number): Promise<string[]> } {
  if (typeof storage.listDocumentsAfter === 'function') {
    return { after: (after, limit) => storage.listDocumentsAfter!(index, after, limit) };
  }
  let all: Promise<string[]> | undefined;
  return {
    async after(after, limit) {
      all ??= storage.listDocuments(index).then((ids) => [...ids].sort(compareIds));
      const sorted = await all;
      const start = after === undefined ? 0 : firstAfter(sorted, after);
      return sorted.slice(start, start + limit);
    },
  };
}

function isDocumentId(id: string): boolean {
  try {
    validateDocumentId(id);
    return true;
  } catch {
    return false;
  }
}

/** Ids are ASCII: code-unit order is byte order, as storages that page sort them. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function firstAfter(sorted: readonly string[], after: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

async function readSummary(statusStore: PipelineStatusStore, index: string, documentId: string): Promise<DocumentSummary | undefined> {
  try {
    const pipeline = await statusStore.read(index, documentId);
    return pipeline ? toDocumentSummary(pipeline) : undefined;
  } catch (error) {
    if (!isKmError(error, 'storage_corrupt')) throw error;
    return {
      index,
      documentId,
      state: 'failed',
      error: `the document's state cannot be read: ${(error as Error).message}`,
      tags: {},
      files: [],
      size: 0,
      creation: '',
      lastUpdate: '',
      steps: [],
      remainingSteps: [],
    };
  }
}

function matches(summary: DocumentSummary, filters: readonly MemoryFilter[], states: ReadonlySet<DocumentState> | undefined): boolean {
  if (states && !states.has(summary.state)) return false;
  if (filters.length === 0) return true;
  return matchesFilters({ ...summary.tags, [ReservedTags.documentId]: [summary.documentId] }, filters);
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_DOCUMENT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DOCUMENT_PAGE) {
    throw new InvalidInputError('invalid_argument', `limit must be a whole number from 1 to ${MAX_DOCUMENT_PAGE}, got ${String(limit)}`);
  }
  return limit;
}

function checkStates(states: readonly DocumentState[] | undefined): ReadonlySet<DocumentState> | undefined {
  if (states === undefined || states.length === 0) return undefined;
  for (const state of states) {
    if (!DOCUMENT_STATES.includes(state)) {
      throw new InvalidInputError('invalid_argument', `state ${JSON.stringify(state)} is not one of ${DOCUMENT_STATES.join(', ')}`);
    }
  }
  return new Set(states);
}
