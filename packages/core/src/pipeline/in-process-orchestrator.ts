import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { mimeTypeOf } from '../decoders/mime-types.js';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { DEFAULT_STEPS, PIPELINE_STATUS_FILE, Steps } from '../models/constants.js';
import type { DataPipeline, PreviousExecution, UploadedFileDetails } from '../models/data-pipeline.js';
import type { Document, DocumentFileSource } from '../models/document.js';
import { cloneTags } from '../models/tag-collection.js';
import { KeyedMutex } from '../util/keyed-mutex.js';
import { deleteDocumentEverywhere } from '../handlers/delete-document-handler.js';
import { deleteIndexEverywhere } from '../handlers/delete-index-handler.js';
import type { PipelineContext } from './pipeline-context.js';
import { fileNamesOf, stableId } from './pipeline-files.js';
import { PipelineStatusStore } from './pipeline-status-store.js';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

const DELETION_STEPS = new Set<string>([Steps.deleteDocument, Steps.deleteIndex]);

/** Options of {@link InProcessPipelineOrchestrator}. */
export interface OrchestratorOptions {
  /** Attempts of a step that fails transiently. @default 3 */
  maxAttempts?: number;
  /** Delay before the first retry, doubled each time, with jitter. @default 200 */
  retryDelayMs?: number;
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
 * Runs a document's steps one after another in this process and returns when done. The
 * state is saved after every step; a failed step leaves the document `failed` with the
 * reason, and {@link resume} continues from the saved state.
 */
export class InProcessPipelineOrchestrator {
  readonly statusStore: PipelineStatusStore;
  private readonly handlers = new Map<string, IPipelineStepHandler>();
  private readonly mutex = new KeyedMutex();
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;

  constructor(
    readonly context: PipelineContext,
    options: OrchestratorOptions = {},
  ) {
    this.statusStore = new PipelineStatusStore(context.contentStorage);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.retryDelayMs = options.retryDelayMs ?? 200;
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

  /** Stores the document's files, saves a new execution's state, runs it. Resolves with the document id. */
  async importDocument(index: string, document: Document, request: PipelineRequest = {}): Promise<string> {
    const steps = this.checkSteps(request.steps);
    if (document.files.length === 0) {
      throw new InvalidInputError('invalid_argument', `document "${document.id}" has no file to import`);
    }
    return this.mutex.run(`${index}/${document.id}`, async () => {
      const pipeline = await this.prepare(index, document, steps, request.args ?? {}, request.sourceUrl);
      await this.run(pipeline, request.signal);
      return document.id;
    });
  }

  /** Runs the remaining steps of a saved pipeline (after a failure or a crash). */
  async resume(index: string, documentId: string, signal?: AbortSignal): Promise<DataPipeline> {
    return this.mutex.run(`${index}/${documentId}`, async () => {
      const pipeline = await this.statusStore.read(index, documentId);
      if (!pipeline) throw new KmError('document_not_found', `document "${documentId}" not found in index "${index}"`);
      pipeline.failed = false;
      delete pipeline.error;
      return this.run(pipeline, signal);
    });
  }

  async deleteDocument(index: string, documentId: string): Promise<void> {
    await this.mutex.run(`${index}/${documentId}`, () => deleteDocumentEverywhere(this.context, index, documentId));
  }

  async deleteIndex(index: string): Promise<void> {
    await deleteIndexEverywhere(this.context, index);
  }

  /** Runs `pipeline.remaining_steps` in order, saving after each; throws `pipeline_failed` on failure. */
  async run(pipeline: DataPipeline, signal?: AbortSignal): Promise<DataPipeline> {
    while (pipeline.remaining_steps.length > 0) {
      const step = pipeline.remaining_steps[0]!;
      const handler = this.handlers.get(step);
      if (!handler) return this.fail(pipeline, `no handler for step "${step}"`);
      let outcome: StepOutcome | undefined;
      for (let attempt = 1; ; attempt++) {
        outcome = await this.invoke(handler, pipeline, signal);
        pipeline = outcome.pipeline;
        if (outcome.result !== 'transient' || attempt >= this.maxAttempts) break;
        this.context.logger.warn('step failed, retrying', { step, attempt, reason: outcome.error });
        await sleep(this.retryDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random()), undefined, signal ? { signal } : {});
      }
      if (outcome.result !== 'success') {
        return this.fail(pipeline, `step "${step}" failed: ${outcome.error ?? outcome.result}`);
      }
      pipeline.remaining_steps.shift();
      pipeline.completed_steps.push(step);
      // After a deletion step there is nothing left to record the state in.
      if (DELETION_STEPS.has(step)) return pipeline;
      await this.statusStore.write(pipeline);
    }
    await this.purgePreviousExecutions(pipeline);
    return pipeline;
  }

  private async invoke(handler: IPipelineStepHandler, pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    try {
      return await handler.invoke(pipeline, signal);
    } catch (error) {
      if (signal?.aborted) {
        await this.statusStore.write(pipeline);
        throw error;
      }
      const transient = error instanceof KmError && error.transient;
      const message = error instanceof Error ? error.message : String(error);
      this.context.logger.error('step threw', { step: handler.stepName, documentId: pipeline.document_id, error: message });
      return { result: transient ? 'transient' : 'fatal', pipeline, error: message };
    }
  }

  private async fail(pipeline: DataPipeline, reason: string): Promise<never> {
    pipeline.failed = true;
    pipeline.error = reason;
    await this.statusStore.write(pipeline);
    throw new KmError('pipeline_failed', `document "${pipeline.document_id}" failed: ${reason}`);
  }

  /** Uploads the files and saves the new execution's state. */
  async prepare(
    index: string,
    document: Document,
    steps: string[],
    args: Record<string, unknown>,
    sourceUrl?: string,
  ): Promise<DataPipeline> {
    const { contentStorage } = this.context;
    const previous = await this.statusStore.read(index, document.id).catch(() => undefined);
    const isNew = previous === undefined;
    const files: UploadedFileDetails[] = [];
    await contentStorage.createIndexDirectory(index);
    await contentStorage.createDocumentDirectory(index, document.id);
    try {
      for (const source of document.files) {
        const size = await contentStorage.writeFile(index, document.id, source.name, await openSource(source));
        files.push({
          id: stableId(document.id, source.name),
          name: source.name,
          size,
          mime_type: source.mimeType ?? mimeTypeOf(source.name),
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
      execution_id: randomUUID().replaceAll('-', ''),
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

  private checkSteps(steps: string[] | undefined): string[] {
    const list = steps && steps.length > 0 ? steps : [...DEFAULT_STEPS];
    for (const step of list) {
      if (typeof step !== 'string' || !this.handlers.has(step)) {
        throw new KmError('handler_not_found', `no handler for step ${JSON.stringify(step)}; known steps: ${this.stepNames.join(', ')}`);
      }
    }
    return list;
  }

  private async purgePreviousExecutions(pipeline: DataPipeline): Promise<void> {
    if (pipeline.previous_executions_to_purge.length === 0) return;
    const keep = new Set([...fileNamesOf(pipeline), PIPELINE_STATUS_FILE]);
    for (const execution of pipeline.previous_executions_to_purge) {
      for (const name of execution.files) {
        if (!keep.has(name)) await this.context.contentStorage.deleteFile(pipeline.index, pipeline.document_id, name);
      }
    }
    pipeline.previous_executions_to_purge = [];
    await this.statusStore.write(pipeline);
  }
}

async function openSource(source: DocumentFileSource) {
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
