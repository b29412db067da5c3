import { SpanKind } from '@opentelemetry/api';
import type { IMemoryDb } from '../contracts/memory-db.js';
import type { IQueue, QueueHandlerResult } from '../contracts/queue.js';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { Steps } from '../models/constants.js';
import type { DataPipeline } from '../models/data-pipeline.js';
import type { Document } from '../models/document.js';
import { deleteIndexEverywhere } from '../handlers/delete-index-handler.js';
import { importAttributes } from '../tracing/pipeline-spans.js';
import { withSpan } from '../tracing/with-span.js';
import { DELETION_STEPS } from './in-process-orchestrator.js';
import type { PipelineContext } from './pipeline-context.js';
import {
  BasePipelineOrchestrator,
  newExecutionId,
  type LostRecordsRecovery,
  type OrchestratorOptions,
  type PipelineOrchestrator,
  type PipelineRequest,
} from './pipeline-orchestrator.js';
import { MISSING_STATE_ATTEMPTS, MissingStateTracker, contentStorageLabel } from './missing-state.js';
import { ignoreCorruptState } from './pipeline-status-store.js';
import { type StepQueueFactory, stepQueueMaxAttempts } from './step-attempts.js';

/** The message put on a step's queue: a pointer to the saved pipeline state. */
export interface PipelinePointer {
  index: string;
  document_id: string;
  execution_id: string;
}

/** Options of {@link DistributedPipelineOrchestrator}. */
export interface DistributedOrchestratorOptions extends OrchestratorOptions {
  /**
   * Makes a queue client; called once per step name, with the delivery cap the queue should use
   * (derived from `maxAttempts`, see {@link stepQueueMaxAttempts}).
   */
  queueFactory: StepQueueFactory;
}

/** Options of {@link DistributedPipelineOrchestrator.start}. */
export interface OrchestratorStartOptions {
  /** Run the handlers in this process. `false` only publishes (an API in front of `km worker`s). @default true */
  runHandlers?: boolean;
}

/**
 * Runs pipelines over queues, one per step: an import stores the files and the state, then
 * puts a pointer (`index`, `document_id`, `execution_id`) on the first step's queue; whoever
 * consumes it runs the step, saves the state, then queues the next step. Any number of
 * processes may consume, as long as they share the content storage, memory DBs and queues.
 *
 * - A pointer to an execution that was replaced (re-import) is dropped. A pointer whose
 *   document has no saved state (deleted, or a process that does not share the content
 *   storage) is retried a few times, then poisoned with an error log naming the storage.
 * - A redelivered pointer whose step is already done only re-queues the next step (a crash
 *   between saving the state and acknowledging the message).
 * - Attempts of a step are counted in the saved state, so they survive crashes; after
 *   `maxAttempts`, or on a fatal error, the document is `failed` with the reason and the
 *   message goes to the queue's poison queue. These step attempts are the one number that
 *   decides when a document fails: the factory is told the queue's delivery cap, derived from
 *   them ({@link stepQueueMaxAttempts}), a safety net for consumers that die without answering.
 *
 * ```ts
 * const orchestrator = new DistributedPipelineOrchestrator(context, {
 *   queueFactory: (step, { maxAttempts }) => new FileQueue({ directory: './km-data/queues', maxAttempts }),
 * });
 * for (const h of createDefaultHandlers(context)) orchestrator.addHandler(h);
 * await orchestrator.start();
 * ```
 */
export class DistributedPipelineOrchestrator extends BasePipelineOrchestrator implements PipelineOrchestrator {
  private readonly queueFactory: StepQueueFactory;
  private readonly queues = new Map<string, IQueue>();
  private readonly inFlight = new Set<Promise<QueueHandlerResult>>();
  private starting: Promise<void> | undefined;
  /** Settles once every step queue is connected (or one failed to). */
  private connected: Promise<void> = Promise.resolve();
  private runHandlers = false;
  private startOptions: OrchestratorStartOptions = {};
  private stopping = false;
  private readonly missingState = new MissingStateTracker();

  constructor(context: PipelineContext, options: DistributedOrchestratorOptions) {
    super(context, options);
    if (typeof options?.queueFactory !== 'function') {
      throw new InvalidInputError('invalid_argument', 'DistributedPipelineOrchestrator needs a queueFactory');
    }
    this.queueFactory = options.queueFactory;
  }

  /** Steps being handled by this process right now. */
  get activeSteps(): number {
    return this.inFlight.size;
  }

  /**
   * Connects one queue per registered step, consuming them when `runHandlers` is true.
   * Register custom handlers before starting. When a queue fails to connect, those already
   * connected are closed (their messages go back, no attempt spent on them) and the promise
   * rejects; a later `start` (or import) tries again.
   */
  start(options: OrchestratorStartOptions = {}): Promise<void> {
    if (this.starting) return this.starting;
    this.startOptions = options;
    let connected!: () => void;
    let failed!: (error: unknown) => void;
    // A queue may deliver a backlog as soon as it is connected, before the queues of the next
    // steps are: work waits for every queue, so a step can always hand on to the next one.
    this.connected = new Promise<void>((resolve, reject) => ((connected = resolve), (failed = reject)));
    this.connected.catch(() => undefined);
    const starting = this.connectQueues(options.runHandlers ?? true);
    this.starting = starting;
    starting.then(connected, (error: unknown) => {
      if (this.starting === starting) this.starting = undefined; // the next start tries again
      failed(error);
    });
    return starting;
  }

  private async connectQueues(runHandlers: boolean): Promise<void> {
    this.runHandlers = runHandlers;
    try {
      for (const step of this.stepNames) {
        const queue = this.queueFactory(step, { maxAttempts: stepQueueMaxAttempts(this.maxAttempts) });
        if (this.runHandlers) queue.onDequeue((message) => this.receive(step, message));
        this.queues.set(step, queue);
        await queue.connect(step, { dequeue: this.runHandlers });
      }
    } catch (error) {
      // No half-started orchestrator: the queues already connected stop consuming and hand
      // back what they hold (its handlers are still waiting for every queue to connect).
      const queues = [...this.queues.values()];
      this.queues.clear();
      for (const queue of queues) await queue.close().catch(() => undefined);
      this.context.logger.error('a step queue did not connect; the orchestrator did not start', { error: (error as Error).message });
      throw error;
    }
  }

  /**
   * Stops taking work, waits up to `drainTimeoutMs` for the steps in progress, then closes the
   * queues; messages not acknowledged by then go back to their queue for another worker.
   */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.starting?.catch(() => undefined);
    const drain = Promise.allSettled([...this.inFlight]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, options.drainTimeoutMs ?? 10_000));
      timer.unref?.();
    });
    await Promise.race([drain, timeout]);
    clearTimeout(timer);
    for (const queue of this.queues.values()) await queue.close().catch(() => undefined);
    this.queues.clear();
  }

  async importDocument(index: string, document: Document, request: PipelineRequest = {}): Promise<string> {
    const steps = this.checkSteps(request.steps);
    this.checkFiles(document);
    await this.ensureStarted();
    return withSpan(
      'km.pipeline.import',
      importAttributes(index, document.id, steps),
      () =>
        this.mutex.run(`${index}/${document.id}`, async () => {
          const pipeline = await this.prepare(index, document, steps, request.args ?? {}, request.sourceUrl);
          await this.enqueue(steps[0]!, pipeline);
          return document.id;
        }),
      { kind: SpanKind.PRODUCER },
    );
  }

  /** Restores records lost to a torn log tail (see the base class); queues what must run. */
  override async recoverLostRecords(index: string, documentId: string, lostIn?: IMemoryDb): Promise<LostRecordsRecovery> {
    await this.ensureStarted();
    return super.recoverLostRecords(index, documentId, lostIn);
  }

  /** Queues `save_records` again for a complete document, in a new execution (older pointers are stale). */
  protected override async rerunSteps(pipeline: DataPipeline): Promise<void> {
    pipeline.execution_id = newExecutionId();
    await this.statusStore.write(pipeline);
    await this.enqueue(pipeline.remaining_steps[0]!, pipeline);
  }

  protected override async queueFirstStep(pipeline: DataPipeline): Promise<void> {
    await this.enqueue(pipeline.remaining_steps[0]!, pipeline);
  }

  async resume(index: string, documentId: string): Promise<DataPipeline> {
    await this.ensureStarted();
    return this.mutex.run(`${index}/${documentId}`, async () => {
      const pipeline = await this.statusStore.read(index, documentId);
      if (!pipeline) throw new KmError('document_not_found', `document "${documentId}" not found in index "${index}"`);
      const next = pipeline.remaining_steps[0];
      if (next === undefined) return pipeline;
      pipeline.failed = false;
      delete pipeline.error;
      delete pipeline.step_attempts;
      pipeline.execution_id = newExecutionId(); // earlier pointers of this document are now stale
      await this.statusStore.write(pipeline);
      await this.enqueue(next, pipeline);
      return pipeline;
    });
  }

  /**
   * Queues the deletion of a document: its state is replaced by a deletion pipeline, so any
   * ingestion message still in a queue is dropped, and a worker removes records and files.
   */
  async deleteDocument(index: string, documentId: string): Promise<void> {
    await this.ensureStarted();
    await this.mutex.run(`${index}/${documentId}`, async () => {
      const previous = await this.statusStore.read(index, documentId).catch(ignoreCorruptState);
      const now = new Date().toISOString();
      const pipeline: DataPipeline = {
        index,
        document_id: documentId,
        execution_id: newExecutionId(),
        steps: [Steps.deleteDocument],
        remaining_steps: [Steps.deleteDocument],
        completed_steps: [],
        tags: previous?.tags ?? {},
        creation: now,
        last_update: now,
        // The files stay listed until the worker removes them, so the status reads "deletion in
        // progress" rather than "not found" while records may still be searchable.
        files: previous?.files ?? [],
        args: {},
        previous_executions_to_purge: [],
        failed: false,
      };
      await this.statusStore.write(pipeline);
      await this.enqueue(Steps.deleteDocument, pipeline);
    });
  }

  /** Queues the deletion of an index (records in every memory DB, then its files). */
  async deleteIndex(index: string): Promise<void> {
    await this.ensureStarted();
    await this.enqueue(Steps.deleteIndex, { index, document_id: '', execution_id: newExecutionId() });
  }

  private async ensureStarted(): Promise<void> {
    if (this.stopping) throw new KmError('transient', 'the pipeline is shutting down', { transient: true });
    await (this.starting ?? this.start(this.startOptions));
  }

  private async enqueue(step: string, pointer: PipelinePointer): Promise<void> {
    const queue = this.queues.get(step);
    if (!queue) throw new KmError('handler_not_found', `no queue for step "${step}"`);
    const message: PipelinePointer = { index: pointer.index, document_id: pointer.document_id, execution_id: pointer.execution_id };
    await queue.enqueue(JSON.stringify(message));
  }

  private receive(step: string, message: string): Promise<QueueHandlerResult> {
    // Work arriving during shutdown is never acknowledged: closing the queue hands it back.
    if (this.stopping) return new Promise<QueueHandlerResult>(() => undefined);
    const work: Promise<QueueHandlerResult> = new Promise((resolve, reject) => {
      this.connected.then(
        () => this.process(step, message).then(resolve, reject),
        // A start that failed closed this queue, which hands the message back: it is never
        // settled here, so it costs no attempt.
        () => void this.inFlight.delete(work),
      );
    });
    this.inFlight.add(work);
    // The queue settles `work` (a rejection is a retry); this bookkeeping must never reject.
    const forget = () => void this.inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async process(step: string, message: string): Promise<QueueHandlerResult> {
    const pointer = parsePointer(message);
    if (!pointer) {
      this.context.logger.error('dropping a malformed queue message', { step, message: message.slice(0, 200) });
      return 'fatal';
    }
    if (step === Steps.deleteIndex) {
      try {
        await deleteIndexEverywhere(this.context, pointer.index);
        return 'ok';
      } catch (error) {
        this.context.logger.error('index deletion failed', { index: pointer.index, error: (error as Error).message });
        return 'transient';
      }
    }
    return this.mutex.run(`${pointer.index}/${pointer.document_id}`, () => this.runStep(step, pointer));
  }

  /**
   * A pointer whose document has no saved state: deleted, or saved where this process cannot see
   * it (another machine's data folder, another storage). Retried a few times, then given up on
   * with an error that names this process's content storage, never dropped in silence.
   */
  private stateMissing(step: string, pointer: PipelinePointer, key: string): QueueHandlerResult {
    const misses = this.missingState.miss(key);
    const storage = contentStorageLabel(this.context.contentStorage);
    const fields = { step, index: pointer.index, documentId: pointer.document_id, contentStorage: storage, attempt: misses };
    if (misses < MISSING_STATE_ATTEMPTS) {
      this.context.logger.warn('no saved state for this document in the content storage, will retry', fields);
      return 'transient';
    }
    this.context.logger.error(
      `step "${step}" of document "${pointer.document_id}" in index "${pointer.index}" found no saved state in ${storage} ` +
        `after ${misses} attempts: the document was deleted, or this process does not share the content storage of the ` +
        'process that imported it (check KM_CONTENT_STORAGE and KM_DATA_DIR on every machine)',
      fields,
    );
    return 'fatal';
  }

  private async runStep(step: string, pointer: PipelinePointer): Promise<QueueHandlerResult> {
    let pipeline = await this.statusStore.read(pointer.index, pointer.document_id);
    const key = `${step}\n${pointer.index}\n${pointer.document_id}\n${pointer.execution_id}`;
    if (!pipeline) return this.stateMissing(step, pointer, key);
    this.missingState.found(key);
    if (pipeline.execution_id !== pointer.execution_id || pipeline.failed) return 'ok'; // replaced
    if (pipeline.remaining_steps[0] !== step) {
      const next = pipeline.remaining_steps[0];
      if (next !== undefined && pipeline.completed_steps.at(-1) === step) await this.enqueue(next, pipeline);
      return 'ok';
    }
    const handler = this.handlers.get(step);
    if (!handler) {
      await this.markFailed(pipeline, `no handler for step "${step}"`);
      return 'fatal';
    }
    const previous = pipeline.step_attempts?.step === step ? pipeline.step_attempts : undefined;
    const attempt = (previous?.count ?? 0) + 1;
    if (attempt > this.maxAttempts) {
      const reason = previous?.last_error ?? 'the worker running it stopped before finishing';
      await this.markFailed(pipeline, `step "${step}" failed after ${this.maxAttempts} attempts: ${reason}`);
      return 'fatal';
    }
    pipeline.step_attempts = { step, count: attempt, ...(previous?.last_error ? { last_error: previous.last_error } : {}) };
    await this.statusStore.write(pipeline);

    const outcome = await this.invoke(handler, pipeline, undefined, attempt);
    this.statusStore.carry(pipeline, outcome.pipeline);
    pipeline = outcome.pipeline;
    if (DELETION_STEPS.has(step)) this.statusStore.forget(pipeline);
    if (outcome.result === 'success') {
      pipeline.remaining_steps.shift();
      pipeline.completed_steps.push(step);
      delete pipeline.step_attempts;
      if (DELETION_STEPS.has(step)) return 'ok';
      const next = pipeline.remaining_steps[0];
      if (next === undefined) {
        await this.complete(pipeline);
      } else {
        await this.statusStore.write(pipeline); // state first, then the pointer
        await this.enqueue(next, pipeline);
      }
      return 'ok';
    }
    const reason = outcome.error ?? outcome.result;
    if (outcome.result === 'transient' && attempt < this.maxAttempts) {
      this.context.logger.warn('step failed, will retry', { step, attempt, documentId: pipeline.document_id, reason });
      pipeline.step_attempts = { step, count: attempt, last_error: reason };
      await this.statusStore.write(pipeline);
      return 'transient';
    }
    await this.markFailed(pipeline, `step "${step}" failed: ${reason}`);
    return 'fatal';
  }
}

function parsePointer(message: string): PipelinePointer | undefined {
  try {
    const value = JSON.parse(message) as Partial<PipelinePointer> | null;
    if (
      value &&
      typeof value.index === 'string' &&
      typeof value.document_id === 'string' &&
      typeof value.execution_id === 'string' &&
      value.index.length > 0
    ) {
      return { index: value.index, document_id: value.document_id, execution_id: value.execution_id };
    }
  } catch {
    // fall through
  }
  return undefined;
}
