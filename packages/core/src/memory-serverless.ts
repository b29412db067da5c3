import type { IMemoryDb } from './contracts/memory-db.js';
import type {
  IKernelMemory,
  ImportInput,
  ImportOptions,
  IndexDetails,
  RetrievalOptions,
  SearchOptions,
  StreamableFileContent,
} from './contracts/kernel-memory.js';
import { extensionOfMimeType, mimeTypeOf } from './decoders/mime-types.js';
import { InvalidInputError, KmError } from './errors/km-error.js';
import { isPipelineComplete, toPipelineStatus, type DataPipelineStatus } from './models/data-pipeline.js';
import { documentFromInput } from './models/document-input.js';
import { isRecordLossSource, type RecordLoss } from './memory-storage/record-loss.js';
import { MemoryFilter, toMemoryFilters } from './models/memory-filter.js';
import type { MemoryAnswer, SearchResult } from './models/search-models.js';
import { checkEmbeddingModelName, checkIngestionArgs } from './validation/km-args.js';
import { checkIndexNameFits } from './pipeline/check-index-name-fits.js';
import { redriveDocuments, type RedriveOptions, type RedriveResult } from './pipeline/redrive.js';
import type { PipelineOrchestrator } from './pipeline/pipeline-orchestrator.js';
import { waitForDocumentStatus, type WaitForDocumentOptions } from './pipeline/wait-for-document.js';
import type { RetrievalRequest, SearchClient } from './search/search-client.js';
import { validateDocumentId } from './validation/document-id.js';
import { validateFileName } from './validation/file-name.js';
import { normalizeIndexNameLogged } from './validation/normalize-index-name-logged.js';
import type { IWebPageFetcher } from './web/web-page-fetcher.js';
import type { DocumentFiles, DocumentList, DocumentSummary } from '@km/wire';
import { toDocumentFiles } from './documents/document-summary.js';
import { listDocumentPage, type ListDocumentsOptions } from './documents/list-documents.js';
import { updateDocumentTags } from './documents/update-document-tags.js';
import { validateTags, type TagCollection } from './models/tag-collection.js';
import { RESERVED_STEP_PREFIX } from './models/constants.js';
import { acquireSyncLease } from './sync/sync-lease.js';
import { DEFAULT_SYNC_CONCURRENCY, syncSource } from './sync/sync-engine.js';
import type { SyncOptions, SyncReport, SyncSource } from './sync/sync-source.js';

const WEB_FILE_NAMES: Record<string, string> = {
  'text/html': 'content.html',
  'application/xhtml+xml': 'content.html',
  'text/markdown': 'content.md',
  'application/json': 'content.json',
  'text/plain': 'content.txt',
};

/** Options of {@link MemoryServerless.waitForDocument}. */

/**
 * Kernel Memory in this process: imports run the pipeline to completion before returning.
 * Build one with `KernelMemoryBuilder`.
 *
 * ```ts
 * const memory = new KernelMemoryBuilder().withDataDirectory('./km-data').build();
 * await memory.importDocument('./handbook.md', { documentId: 'handbook', tags: { team: ['hr'] } });
 * const { text, relevantSources } = await memory.ask('How many vacation days do I get?');
 * ```
 */
export class MemoryServerless implements IKernelMemory {
  /** Losses already handled, so a restart or a second subscription never handles one twice. */
  private readonly handledLosses = new WeakSet<RecordLoss>();
  private lossSubscriptions: Array<() => void> | undefined;

  constructor(
    readonly orchestrator: PipelineOrchestrator,
    private readonly searchClient: SearchClient,
    private readonly webFetcher: IWebPageFetcher,
  ) {
    // An orchestrator that must be started (queues) recovers once started: MemoryService.start.
    if (typeof (orchestrator as { start?: unknown }).start !== 'function') this.watchRecordLosses();
  }

  /**
   * Subscribes to the record losses of the embedded memory DBs (a torn log tail cut on load):
   * each document named is handed to the orchestrator's `recoverLostRecords`.
   */
  protected watchRecordLosses(): void {
    if (this.lossSubscriptions) return;
    this.lossSubscriptions = [];
    for (const db of this.memoryDbs) {
      if (isRecordLossSource(db)) this.lossSubscriptions.push(db.onRecordsLost((loss) => void this.recoverLostRecords(loss, db)));
    }
  }

  /** Stops handling record losses (those already under way finish). */
  protected unwatchRecordLosses(): void {
    for (const off of this.lossSubscriptions?.splice(0) ?? []) off();
    this.lossSubscriptions = undefined;
  }

  /** Restores what a loss took, document by document, once per loss; never throws. */
  private async recoverLostRecords(loss: RecordLoss, db: IMemoryDb): Promise<void> {
    if (this.handledLosses.has(loss)) return;
    this.handledLosses.add(loss);
    const { logger } = this.orchestrator.context;
    for (const documentId of loss.documentIds) {
      try {
        if (!this.orchestrator.recoverLostRecords) {
          logger.warn('records lost to a torn log tail: this orchestrator cannot restore them; re-import', {
            index: loss.index,
            documentId,
          });
          continue;
        }
        const action = await this.orchestrator.recoverLostRecords(loss.index, documentId, db);
        logger.warn(`records lost to a torn log tail: ${action}`, { index: loss.index, documentId });
      } catch (error) {
        logger.error('could not restore records lost to a torn log tail', {
          index: loss.index,
          documentId,
          error: (error as Error).message,
        });
      }
    }
  }

  /** The index a caller's name stands for, with a warning when normalisation changed it (see `normalizeIndexNameLogged`). */
  protected indexName(index: string | null | undefined): string {
    return normalizeIndexNameLogged(index, this.orchestrator.context.logger);
  }

  private get memoryDbs(): readonly IMemoryDb[] {
    return this.orchestrator.context.memoryDbs;
  }

  /** What an import checks before anything is stored or fetched: the index name fits every memory DB, the arguments are known and well typed. */
  private async checkImport(options: ImportOptions): Promise<string> {
    const index = this.indexName(options.index);
    checkIndexNameFits(index, this.memoryDbs);
    const args = checkIngestionArgs(options.args);
    await checkEmbeddingModelName(args.embeddingModelName, this.orchestrator.context.embeddingGenerator);
    return index;
  }

  async importDocument(input: ImportInput, options: ImportOptions = {}): Promise<string> {
    const index = await this.checkImport(options);
    const document = documentFromInput(input, options);
    return this.orchestrator.importDocument(index, document, { steps: options.steps, args: options.args, signal: options.signal });
  }

  async importText(text: string, options: ImportOptions = {}): Promise<string> {
    if (typeof text !== 'string') throw new InvalidInputError('invalid_argument', 'text must be a string');
    return this.importDocument({ name: 'content.txt', data: text, mimeType: 'text/plain' }, options);
  }

  async importWebPage(url: string, options: ImportOptions = {}): Promise<string> {
    const index = await this.checkImport(options);
    const page = await this.webFetcher.fetch(url, options.signal);
    const name = WEB_FILE_NAMES[page.mimeType] ?? `content${extensionOfMimeType(page.mimeType)}`;
    const document = documentFromInput({ name, data: page.data, mimeType: page.mimeType }, options);
    return this.orchestrator.importDocument(index, document, {
      steps: options.steps,
      args: options.args,
      signal: options.signal,
      sourceUrl: page.url,
    });
  }

  async listIndexes(): Promise<IndexDetails[]> {
    const names = new Set<string>();
    for (const db of this.memoryDbs) for (const name of await db.getIndexes()) names.add(name);
    return [...names].sort().map((name) => ({ name }));
  }

  async deleteIndex(index?: string): Promise<void> {
    await this.orchestrator.deleteIndex(this.indexName(index));
  }

  async deleteDocument(documentId: string, index?: string): Promise<void> {
    await this.orchestrator.deleteDocument(this.indexName(index), validateDocumentId(documentId));
  }

  /** True once every step ran and no file failed (a document with a failed file is never ready). */
  async isDocumentReady(documentId: string, index?: string): Promise<boolean> {
    const pipeline = await this.orchestrator.statusStore.read(this.indexName(index), validateDocumentId(documentId));
    return pipeline !== undefined && isPipelineComplete(pipeline);
  }

  /**
   * Polls the status until the document is ready; rejects with `pipeline_failed` (naming each
   * failed file and its reason) when it failed, `aborted` at the time limit. In process the
   * import already waited, so this returns at once.
   */
  async waitForDocument(documentId: string, options: WaitForDocumentOptions = {}): Promise<DataPipelineStatus> {
    return waitForDocumentStatus(documentId, () => this.getDocumentStatus(documentId, options.index), options, 200);
  }

  async getDocumentStatus(documentId: string, index?: string): Promise<DataPipelineStatus | null> {
    const pipeline = await this.orchestrator.statusStore.read(this.indexName(index), validateDocumentId(documentId));
    return pipeline ? toPipelineStatus(pipeline) : null;
  }

  /** Runs the remaining steps of a document that failed or was interrupted. */
  async resumeDocument(documentId: string, index?: string): Promise<DataPipelineStatus> {
    return toPipelineStatus(await this.orchestrator.resume(this.indexName(index), validateDocumentId(documentId)));
  }

  /**
   * Runs again, from their last completed step, the failed documents (of every index, an index,
   * or one document) and, with `stalled`, those whose state stopped changing: see
   * {@link redriveDocuments}. Idempotent.
   *
   * ```ts
   * const { redriven } = await memory.redrive({ index: 'docs' });
   * ```
   */
  async redrive(options: RedriveOptions = {}): Promise<RedriveResult> {
    const index = options.index === undefined && options.documentId === undefined ? undefined : this.indexName(options.index);
    const documentId = options.documentId === undefined ? undefined : validateDocumentId(options.documentId);
    return redriveDocuments(this.orchestrator, { ...options, index, documentId });
  }

  /**
   * A page of an index's documents in id order, with their state, own tags and uploaded files;
   * `nextCursor` continues it. Filtered by tags (`filters`, as in search) and by `states`.
   *
   * ```ts
   * let page = await memory.listDocuments({ index: 'docs', states: ['failed'] });
   * while (page.nextCursor) page = await memory.listDocuments({ index: 'docs', states: ['failed'], cursor: page.nextCursor });
   * ```
   */
  async listDocuments(options: ListDocumentsOptions = {}): Promise<DocumentList> {
    const { index, filters, ...page } = options;
    return listDocumentPage(this.orchestrator.context.contentStorage, this.orchestrator.statusStore, this.indexName(index), {
      ...page,
      filters: toMemoryFilters(filters ?? []),
    });
  }

  /** The files stored with a document: its uploads and, after each, the files the pipeline made from it. */
  async getDocumentFiles(documentId: string, index?: string): Promise<DocumentFiles> {
    const name = this.indexName(index);
    const pipeline = await this.orchestrator.statusStore.read(name, validateDocumentId(documentId));
    if (!pipeline) throw new KmError('document_not_found', `document "${documentId}" not found in index "${name}"`);
    return { index: name, documentId, files: toDocumentFiles(pipeline) };
  }

  /**
   * Replaces a document's own tags (reserved `__` tags are refused) without ingesting it again:
   * in its state and in its records of every memory DB. Refused with `document_busy` while the
   * document is being ingested or deleted.
   *
   * ```ts
   * await memory.updateDocumentTags('handbook', { team: ['hr'], year: ['2026'] }, 'docs');
   * ```
   */
  async updateDocumentTags(documentId: string, tags: TagCollection, index?: string): Promise<DocumentSummary> {
    const name = this.indexName(index);
    validateDocumentId(documentId);
    const own = validateTags(tags);
    if (this.orchestrator.updateDocumentTags) return this.orchestrator.updateDocumentTags(name, documentId, own);
    return updateDocumentTags(this.orchestrator.statusStore, this.memoryDbs, name, documentId, own);
  }

  /**
   * Makes the index hold exactly the items of `source` (a folder, a bucket prefix, a site): new
   * and changed items are ingested, documents of items gone are deleted, unchanged ones are left
   * alone; see {@link syncSource}. Holds the lease of (index, source) while it runs, so another
   * sync of the same source into the same index fails with `sync_busy` (or waits
   * `waitForLeaseMs`). A listing that fails, or an abort, returns a report with
   * `complete: false` and deletes nothing; items that fail are counted and reported. Run again
   * after a crash, it converges. Over queues (MemoryService) it waits for each document to be
   * ready, so the counts are true when it returns.
   *
   * ```ts
   * const report = await memory.sync(folderSource({ root: './docs', include: ['**\/*.md'] }), { index: 'docs' });
   * console.log(`${report.added} added, ${report.updated} updated, ${report.deleted} deleted`);
   * ```
   */
  async sync(source: SyncSource, options: SyncOptions = {}): Promise<SyncReport> {
    checkSyncSource(source);
    if (options === null || typeof options !== 'object') throw new InvalidInputError('invalid_argument', 'sync options must be an object');
    const index = await this.checkImport({ index: options.index, args: options.args });
    const tags = validateTags(options.tags);
    const concurrency = options.concurrency ?? DEFAULT_SYNC_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
      throw new InvalidInputError(
        'invalid_argument',
        `concurrency must be a whole number from 1 to 64, got ${String(options.concurrency)}`,
      );
    }
    if (options.deleteMissing !== undefined && typeof options.deleteMissing !== 'boolean') {
      throw new InvalidInputError('invalid_argument', `deleteMissing must be true or false, got ${String(options.deleteMissing)}`);
    }
    const waitMs = options.waitForLeaseMs ?? 0;
    if (typeof waitMs !== 'number' || !Number.isFinite(waitMs) || waitMs < 0) {
      throw new InvalidInputError(
        'invalid_argument',
        `waitForLeaseMs must be a number of milliseconds >= 0, got ${String(options.waitForLeaseMs)}`,
      );
    }
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
      throw new InvalidInputError('invalid_argument', 'onProgress must be a function');
    }
    this.checkSyncSteps(options.steps);
    const lease = await acquireSyncLease(this.orchestrator.context.contentStorage, index, source.id, {
      waitMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    try {
      const queued = typeof (this.orchestrator as { start?: unknown }).start === 'function';
      return await syncSource({ orchestrator: this.orchestrator, index, queued }, source, { ...options, tags, concurrency });
    } finally {
      await lease.release();
    }
  }

  /** Refuses, before anything is synced, steps no import could run (so every item would fail alike). */
  private checkSyncSteps(steps: unknown): void {
    if (steps === undefined) return;
    if (!Array.isArray(steps)) throw new InvalidInputError('invalid_argument', 'steps must be a list of step names');
    for (const step of steps) {
      if (typeof step !== 'string' || step.startsWith(RESERVED_STEP_PREFIX) || !this.orchestrator.stepNames.includes(step)) {
        throw new InvalidInputError(
          'invalid_argument',
          `step ${JSON.stringify(step)} cannot be requested; known steps: ${this.orchestrator.stepNames.filter((s) => !s.startsWith(RESERVED_STEP_PREFIX)).join(', ')}`,
        );
      }
    }
  }

  async exportFile(documentId: string, fileName: string, index?: string): Promise<StreamableFileContent> {
    const name = this.indexName(index);
    validateDocumentId(documentId);
    validateFileName(fileName);
    const storage = this.orchestrator.context.contentStorage;
    const info = (await storage.listFiles(name, documentId)).find((f) => f.name === fileName);
    if (!info) throw new KmError('file_not_found', `file "${fileName}" of document "${documentId}" in index "${name}" not found`);
    // The type decided at import (from the name, declared type and first bytes), else the name's.
    const pipeline = await this.orchestrator.statusStore.read(name, documentId).catch(() => undefined);
    const details = pipeline?.files.flatMap((f) => [f, ...Object.values(f.generated_files)]).find((f) => f.name === fileName);
    return {
      fileName,
      fileType: details?.mime_type || mimeTypeOf(fileName),
      lastWrite: info.lastModified,
      size: info.size,
      getStream: () => storage.readFileStream(name, documentId, fileName),
    };
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    if (typeof query !== 'string') throw new InvalidInputError('invalid_argument', 'query must be a string');
    return this.searchClient.search(query, this.request(options, options.limit));
  }

  async ask(question: string, options: RetrievalOptions = {}): Promise<MemoryAnswer> {
    return this.searchClient.ask(question, this.request(options));
  }

  askStreaming(question: string, options: RetrievalOptions = {}): AsyncIterable<MemoryAnswer> {
    return this.searchClient.askStreaming(question, this.request(options));
  }

  private request(options: RetrievalOptions, limit?: number): RetrievalRequest {
    const filters = toMemoryFilters(options.filters ?? []);
    if (options.filter !== undefined) {
      if (!(options.filter instanceof MemoryFilter)) filters.push(MemoryFilter.fromJSON(options.filter));
      else filters.push(options.filter);
    }
    // Absent stays absent: the search client then applies its defaultMinRelevance (and, for ask, its answer floor).
    const minRelevance = options.minRelevance;
    if (
      minRelevance !== undefined &&
      (typeof minRelevance !== 'number' || !Number.isFinite(minRelevance) || minRelevance < -1 || minRelevance > 1)
    ) {
      throw new InvalidInputError('invalid_argument', `minRelevance must be a number in [-1, 1], got ${String(minRelevance)}`);
    }
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isFinite(limit))) {
      throw new InvalidInputError('invalid_argument', `limit must be a number, got ${String(limit)}`);
    }
    return {
      index: this.indexName(options.index),
      filters,
      ...(minRelevance !== undefined ? { minRelevance } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(options.mode !== undefined ? { mode: options.mode } : {}),
      ...(options.fusion !== undefined ? { fusion: options.fusion } : {}),
      ...(options.rerank !== undefined ? { rerank: options.rerank } : {}),
      ...(options.args !== undefined ? { args: options.args } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }
}

/** Throws `invalid_argument` unless `source` looks like a {@link SyncSource}. */
function checkSyncSource(source: SyncSource): void {
  if (!source || typeof source !== 'object') throw new InvalidInputError('invalid_argument', 'sync source must be an object');
  if (typeof source.id !== 'string' || source.id === '')
    throw new InvalidInputError('invalid_argument', 'sync source must have a non-empty id');
  if (typeof source.list !== 'function') throw new InvalidInputError('invalid_argument', `sync source "${source.id}" has no list()`);
}
