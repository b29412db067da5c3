import type { DocumentSummary } from '@km/wire';
import { updateDocumentTags } from '../documents/update-document-tags.js';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { detectFileType, FILE_TYPE_HEAD_BYTES } from '../decoders/detect-file-type.js';
import { InvalidInputError, KmError, isKmError } from '../errors/km-error.js';
import type { IMemoryDb } from '../contracts/memory-db.js';
import { DEFAULT_STEPS, LEGACY_PIPELINE_STATUS_FILE, PIPELINE_STATUS_FILE, RESERVED_STEP_PREFIX, Steps } from '../models/constants.js';
import { failedFilesReason, type DataPipeline, type PreviousExecution, type UploadedFileDetails } from '../models/data-pipeline.js';
import type { Document, DocumentFileSource } from '../models/document.js';
import { MemoryFilters } from '../models/memory-filter.js';
import { cloneTags, type TagCollection } from '../models/tag-collection.js';
import { listRecordIds } from '../memory-storage/memory-db-operations.js';
import { recordStepOutcome, stepAttributes } from '../tracing/pipeline-spans.js';
import { withSpan } from '../tracing/with-span.js';
import { KeyedMutex } from '../util/keyed-mutex.js';
import type { PipelineContext } from './pipeline-context.js';
import { checkIndexNameFits } from './check-index-name-fits.js';
import { captureHead } from './head-capture.js';
import { fileNamesOf, generatedFilesOf, stableId } from './pipeline-files.js';
import { contentStorageLabel } from './missing-state.js';
import { PipelineStatusStore, ignoreCorruptState } from './pipeline-status-store.js';
import { DEFAULT_STEP_ATTEMPTS } from './step-attempts.js';

/** What an observer hears when a step ends (for metrics and tracing). */
export interface StepFinishedEvent {
  step: string;
  index: string;
  documentId: string;
  result: StepOutcome['result'];
  durationMs: number;
}

/** What an observer hears when a document's pipeline ends. */
export interface PipelineFinishedEvent {
  index: string;
  documentId: string;
  failed: boolean;
  /** From the upload to the end, in ms. */
  durationMs: number;
}

/** Hooks for metrics or OpenTelemetry; they must not throw. */
export interface PipelineObserver {
  stepFinished?(event: StepFinishedEvent): void;
  pipelineFinished?(event: PipelineFinishedEvent): void;
}

/** Options shared by the orchestrators. */
export interface OrchestratorOptions {
  /**
   * In process: attempts of a step that fails transiently before the document fails. Over queues:
   * deliveries of a step that end with no answer at all (the worker running it died) before the
   * document fails; transient failures are retried for `retryBudgetMs` instead. Queues created
   * for the distributed orchestrator derive their delivery cap from both (see
   * `stepQueueMaxAttempts`). @default 3
   */
  maxAttempts?: number;
  /**
   * Over queues: how long a step that keeps failing transiently (a backend down, throttled,
   * timing out) is retried, with the queue's capped exponential backoff and jitter (a backend's
   * `retryAfterMs` honoured), before its document fails; counted from the step's first failure,
   * including time the pipeline state itself could not be read. Not transient failures fail the
   * document at once. @default 600000 (10 minutes)
   */
  retryBudgetMs?: number;
  /** Ceiling of the first in-process retry's delay, doubled each time, with full jitter (see `BackoffPolicy`). @default 200 */
  retryDelayMs?: number;
  /** Told about every step and pipeline that ends. */
  observer?: PipelineObserver;
}

/** Options of one import. */
export interface PipelineRequest {
  steps?: string[] | undefined;
  args?: Record<string, unknown> | undefined;
  signal?: AbortSignal | undefined;
  /** Where the files came from (web import); lands in records' `payload.url`. */
  sourceUrl?: string | undefined;
}

/**
 * What {@link BasePipelineOrchestrator.recoverLostRecords} did for a document:
 * - `deleted`: the document is gone, so its records left in the memory DB were deleted;
 * - `pending`: steps remain, and `save_records` is among them to rewrite the records;
 * - `resaved`: it was complete; `save_records` ran again (in process) or was queued again;
 * - `failed`: its records cannot be rebuilt (generated files deleted); it is marked failed;
 * - `skipped`: nothing to do (a deletion is pending, or the document saves no records).
 */
export type LostRecordsRecovery = 'deleted' | 'pending' | 'resaved' | 'failed' | 'skipped';

/** Error of a document whose lost records cannot be rebuilt. */
export const RECORDS_LOST_REASON = 'records lost to a torn log tail; re-import';

/** What a memory needs from an orchestrator, in process or over a queue. */
export interface PipelineOrchestrator {
  readonly context: PipelineContext;
  readonly statusStore: PipelineStatusStore;
  readonly stepNames: string[];
  addHandler(handler: IPipelineStepHandler): this;
  /** Stores the files, saves the new execution and runs it (or queues it). Resolves with the document id. */
  importDocument(index: string, document: Document, request?: PipelineRequest): Promise<string>;
  /** Runs (or queues) the remaining steps of a failed or interrupted document. */
  resume(index: string, documentId: string, signal?: AbortSignal): Promise<DataPipeline>;
  deleteDocument(index: string, documentId: string): Promise<void>;
  deleteIndex(index: string): Promise<void>;
  /** Restores a document's records that a memory DB lost to a torn log tail (see {@link LostRecordsRecovery}). */
  recoverLostRecords?(index: string, documentId: string, lostIn?: IMemoryDb): Promise<LostRecordsRecovery>;
  /** Replaces a document's own tags in its state and records, under the document's lock (see `updateDocumentTags`). */
  updateDocumentTags?(index: string, documentId: string, tags: TagCollection): Promise<DocumentSummary>;
}

/**
 * What both orchestrators share: the handler registry, storing a new execution's files and
 * state, timed step invocation, failure and the purge of earlier executions.
 */
export abstract class BasePipelineOrchestrator {
  readonly statusStore: PipelineStatusStore;
  protected readonly handlers = new Map<string, IPipelineStepHandler>();
  protected readonly mutex = new KeyedMutex();
  protected readonly maxAttempts: number;
  protected readonly observer: PipelineObserver | undefined;

  constructor(
    readonly context: PipelineContext,
    options: OrchestratorOptions = {},
  ) {
    this.statusStore = new PipelineStatusStore(context.contentStorage);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_STEP_ATTEMPTS);
    this.observer = options.observer;
  }

  /** Registers the handler of a step name (replacing an earlier one). */
  addHandler(handler: IPipelineStepHandler): this {
    this.handlers.set(handler.stepName, handler);
    return this;
  }

  /** Step names with a handler. */
  get stepNames(): string[] {
    return [...this.handlers.keys()];
  }

  /**
   * Uploads the files and saves the new execution's state. Each file's type is decided by
   * `detectFileType` from its name, declared type and first bytes (captured while it is
   * written). An index name too long for a configured memory DB is refused before any write.
   */
  async prepare(
    index: string,
    document: Document,
    steps: string[],
    args: Record<string, unknown>,
    sourceUrl?: string,
  ): Promise<DataPipeline> {
    const { contentStorage } = this.context;
    checkIndexNameFits(index, this.context.memoryDbs);
    const previous = await this.statusStore.read(index, document.id).catch(ignoreCorruptState);
    const isNew = previous === undefined;
    const files: UploadedFileDetails[] = [];
    await contentStorage.createIndexDirectory(index);
    await contentStorage.createDocumentDirectory(index, document.id);
    try {
      for (const source of document.files) {
        const upload = captureHead(await openSource(source), FILE_TYPE_HEAD_BYTES);
        const size = await contentStorage.writeFile(index, document.id, source.name, upload.content);
        files.push({
          id: stableId(document.id, source.name),
          name: source.name,
          size,
          mime_type: detectFileType({ fileName: source.name, declaredType: source.mimeType, head: upload.head() }),
          artifact_type: 'uploaded_file',
          partition_number: 0,
          section_number: 0,
          tags: {},
          processed_by: [],
          log: [],
          generated_files: {},
          ...(sourceUrl ? { source_url: sourceUrl } : {}),
        });
      }
    } catch (error) {
      // Nothing half-imported survives: a new document's folder goes, a re-import keeps the old state.
      if (isNew) await contentStorage.deleteDocumentDirectory(index, document.id).catch(() => undefined);
      throw error;
    }
    const now = new Date().toISOString();
    const purge: PreviousExecution[] = previous
      ? [...previous.previous_executions_to_purge, { execution_id: previous.execution_id, files: fileNamesOf(previous) }]
      : [];
    const pipeline: DataPipeline = {
      index,
      document_id: document.id,
      execution_id: newExecutionId(),
      steps: [...steps],
      remaining_steps: [...steps],
      completed_steps: [],
      tags: cloneTags(document.tags),
      creation: now,
      last_update: now,
      files,
      args: { ...args },
      previous_executions_to_purge: purge,
      failed: false,
    };
    await this.statusStore.write(pipeline);
    return pipeline;
  }

  /**
   * Restores a document's records that `lostIn` (a memory DB) lost to a torn log tail. Runs
   * under the document's lock and decides from its current status:
   * - no status (deleted): the document's records left in `lostIn` (every memory DB when not
   *   given) are deleted, so a cut deletion does not bring them back;
   * - a deletion pipeline: nothing, the deletion removes them;
   * - steps remaining (an import under way, or failed on its way): `save_records` is taken off
   *   each file's `processed_by` and kept among the remaining steps (before
   *   `delete_generated_files`), in the same execution: nothing is queued;
   * - complete: `save_records` runs again from the partitions and embeddings stored with the
   *   document ({@link rerunSteps}); when those are gone (`delete_generated_files` ran, or a
   *   file that had records has no generated file or embedding left) the document is marked
   *   failed with {@link RECORDS_LOST_REASON} instead, since a re-save would delete every record.
   */
  async recoverLostRecords(index: string, documentId: string, lostIn?: IMemoryDb): Promise<LostRecordsRecovery> {
    return this.mutex.run(`${index}/${documentId}`, async () => {
      const pipeline = await this.statusStore.read(index, documentId);
      if (!pipeline) {
        for (const db of lostIn ? [lostIn] : this.context.memoryDbs) {
          for (const id of await listRecordIds(db, index, [MemoryFilters.byDocument(documentId)])) await db.delete(index, { id });
        }
        return 'deleted';
      }
      if (pipeline.steps.includes(Steps.deleteDocument) || !pipeline.steps.includes(Steps.saveRecords)) return 'skipped';
      const unrecoverable = whyRecordsCannotBeRebuilt(pipeline);
      if (unrecoverable !== undefined) {
        this.context.logger.warn('records lost to a torn log tail cannot be rebuilt', { index, documentId, reason: unrecoverable });
        await this.markFailed(pipeline, `${RECORDS_LOST_REASON} (${unrecoverable})`);
        return 'failed';
      }
      for (const file of pipeline.files) file.processed_by = file.processed_by.filter((s) => s !== Steps.saveRecords);
      if (pipeline.remaining_steps.length > 0) {
        const remaining = pipeline.remaining_steps;
        const cleanup = remaining.indexOf(Steps.deleteGeneratedFiles);
        const save = remaining.indexOf(Steps.saveRecords);
        const at = save !== -1 && (cleanup === -1 || save < cleanup) ? -1 : cleanup === -1 ? remaining.length : cleanup;
        if (at !== -1) remaining.splice(at, 0, Steps.saveRecords);
        await this.statusStore.write(pipeline);
        // save_records now comes before the step whose message is queued: queue it too.
        if (at === 0 && !pipeline.failed) await this.queueFirstStep(pipeline);
        return 'pending';
      }
      const last = pipeline.completed_steps.lastIndexOf(Steps.saveRecords);
      if (last !== -1) pipeline.completed_steps.splice(last, 1);
      pipeline.remaining_steps = [Steps.saveRecords];
      pipeline.previous_executions_to_purge = [];
      pipeline.failed = false;
      delete pipeline.error;
      delete pipeline.step_attempts;
      await this.rerunSteps(pipeline);
      return 'resaved';
    });
  }

  /**
   * Replaces a document's own tags under the document's lock, so that an import or a step of
   * this process cannot write its state in between (other processes are kept out by the
   * storage's conditional writes, where it has them). While this process runs an import or a
   * step of the document, it is refused at once with `document_busy` rather than made to wait
   * (a step may take minutes, and the document would still be busy after it).
   */
  updateDocumentTags(index: string, documentId: string, tags: TagCollection): Promise<DocumentSummary> {
    const key = `${index}/${documentId}`;
    if (this.mutex.isHeld(key)) {
      return Promise.reject(
        new KmError('document_busy', `document "${documentId}" is being ingested or deleted: change its tags once that is done`),
      );
    }
    return this.mutex.run(key, () => updateDocumentTags(this.statusStore, this.context.memoryDbs, index, documentId, tags));
  }

  /** Runs (in process) or queues the remaining steps of `pipeline`; called holding the document's lock. */
  protected abstract rerunSteps(pipeline: DataPipeline): Promise<void>;

  /** Queues the first remaining step of a pipeline under way (in its execution); nothing in process. */
  protected async queueFirstStep(_pipeline: DataPipeline): Promise<void> {}

  protected checkSteps(steps: string[] | undefined): string[] {
    const list = steps && steps.length > 0 ? steps : [...DEFAULT_STEPS];
    for (const step of list) {
      // `private_delete_document` and `private_delete_index` run only when km deletes.
      if (typeof step === 'string' && step.startsWith(RESERVED_STEP_PREFIX)) {
        throw new InvalidInputError('invalid_argument', `step ${JSON.stringify(step)} is reserved for deletions and cannot be requested`);
      }
      if (typeof step !== 'string' || !this.handlers.has(step)) {
        throw new KmError('handler_not_found', `no handler for step ${JSON.stringify(step)}; known steps: ${this.stepNames.join(', ')}`);
      }
    }
    return list;
  }

  protected checkFiles(document: Document): void {
    if (document.files.length === 0) {
      throw new InvalidInputError('invalid_argument', `document "${document.id}" has no file to import`);
    }
  }

  /**
   * Runs one step (`attempt`, from 1) in a `km.pipeline.step <step>` span; a throwing handler
   * becomes a transient or fatal outcome.
   */
  protected invoke(handler: IPipelineStepHandler, pipeline: DataPipeline, signal?: AbortSignal, attempt = 1): Promise<StepOutcome> {
    const step = handler.stepName;
    return withSpan(`km.pipeline.step ${step}`, stepAttributes(step, pipeline, attempt), async (span) => {
      const outcome = await this.invokeHandler(handler, pipeline, signal);
      recordStepOutcome(span, outcome);
      return outcome;
    });
  }

  private async invokeHandler(handler: IPipelineStepHandler, pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    const started = performance.now();
    let outcome: StepOutcome;
    try {
      outcome = await handler.invoke(pipeline, signal);
    } catch (error) {
      if (signal?.aborted) {
        await this.statusStore.write(pipeline);
        throw error;
      }
      // A file of the document missing from the storage is retried like a transient error (it may
      // be a storage that is catching up, or a misconfigured worker), and the reason names the storage.
      const missingFile = isKmError(error, 'file_not_found');
      const transient = (error instanceof KmError && error.transient) || missingFile;
      const message =
        (error instanceof Error ? error.message : String(error)) +
        (missingFile ? ` (in ${contentStorageLabel(this.context.contentStorage)})` : '');
      this.context.logger.error('step threw', { step: handler.stepName, documentId: pipeline.document_id, error: message });
      const retryAfterMs = transient && error instanceof KmError ? error.retryAfterMs : undefined;
      outcome = {
        result: transient ? 'transient' : 'fatal',
        pipeline,
        error: message,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    this.notify(() =>
      this.observer?.stepFinished?.({
        step: handler.stepName,
        index: pipeline.index,
        documentId: pipeline.document_id,
        result: outcome.result,
        durationMs: performance.now() - started,
      }),
    );
    return outcome;
  }

  /** Saves the pipeline as failed with the reason. */
  protected async markFailed(pipeline: DataPipeline, reason: string): Promise<void> {
    pipeline.failed = true;
    pipeline.error = reason;
    delete pipeline.step_attempts;
    await this.statusStore.write(pipeline);
    this.finished(pipeline);
  }

  /**
   * Saves the pipeline whose steps all ran and removes files of earlier executions it did not
   * rewrite. When a file failed on its way, the document ends `failed` with an `error` naming
   * each failed file (its other files stay searchable).
   */
  protected async complete(pipeline: DataPipeline): Promise<void> {
    delete pipeline.step_attempts;
    const reason = failedFilesReason(pipeline);
    if (reason !== undefined) {
      pipeline.failed = true;
      pipeline.error = reason;
    }
    await this.statusStore.write(pipeline);
    if (pipeline.previous_executions_to_purge.length > 0) {
      const keep = new Set([...fileNamesOf(pipeline), PIPELINE_STATUS_FILE]);
      // The state of an earlier version (`__pipeline_status.json`) goes with its execution, unless an upload has its name.
      for (const execution of pipeline.previous_executions_to_purge) {
        for (const name of [...execution.files, LEGACY_PIPELINE_STATUS_FILE]) {
          if (!keep.has(name)) await this.context.contentStorage.deleteFile(pipeline.index, pipeline.document_id, name);
        }
      }
      pipeline.previous_executions_to_purge = [];
      await this.statusStore.write(pipeline);
    }
    this.finished(pipeline);
  }

  private finished(pipeline: DataPipeline): void {
    this.notify(() =>
      this.observer?.pipelineFinished?.({
        index: pipeline.index,
        documentId: pipeline.document_id,
        failed: pipeline.failed,
        durationMs: Math.max(0, Date.now() - Date.parse(pipeline.creation)),
      }),
    );
  }

  private notify(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.context.logger.warn('pipeline observer threw', { error: (error as Error).message });
    }
  }
}

/**
 * Why `save_records` cannot rebuild a complete document's records from what is stored with it,
 * or undefined when it can.
 */
function whyRecordsCannotBeRebuilt(pipeline: DataPipeline): string | undefined {
  if (pipeline.completed_steps.includes(Steps.deleteGeneratedFiles)) return 'its generated files were deleted by delete_generated_files';
  const embedded = pipeline.files.some((f) => Object.values(f.generated_files).some((g) => g.artifact_type === 'text_embedding_vector'));
  for (const file of pipeline.files) {
    if (file.error !== undefined || !file.processed_by.includes(Steps.saveRecords)) continue;
    const generated = Object.values(file.generated_files);
    if (generated.length === 0) return `file "${file.name}" has no generated file left`;
    const partitions = generatedFilesOf(file, 'text_partition', 'synthetic_data');
    if (embedded && partitions.length > 0 && !generated.some((g) => g.artifact_type === 'text_embedding_vector')) {
      return `file "${file.name}" has no embedding file left`;
    }
  }
  return undefined;
}

/** A fresh execution id (KM's format: 32 hex digits). */
export function newExecutionId(): string {
  return randomUUID().replaceAll('-', '');
}

async function openSource(source: DocumentFileSource): Promise<Uint8Array | string | AsyncIterable<Uint8Array>> {
  if ('path' in source) {
    const info = await stat(source.path).catch((cause: unknown) => {
      throw new InvalidInputError('invalid_argument', `cannot read file ${JSON.stringify(source.path)}`, { cause });
    });
    if (!info.isFile()) throw new InvalidInputError('invalid_argument', `${JSON.stringify(source.path)} is not a file`);
    return createReadStream(source.path);
  }
  if ('data' in source) return source.data;
  const stream = source.stream as unknown;
  if (typeof (stream as ReadableStream).getReader === 'function') {
    const { Readable } = await import('node:stream');
    return Readable.fromWeb(stream as never);
  }
  return stream as AsyncIterable<Uint8Array>;
}
