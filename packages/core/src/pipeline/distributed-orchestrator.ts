import { SpanKind } from '@opentelemetry/api';
import type { IMemoryDb } from '../contracts/memory-db.js';
import type { IQueue, QueueDelivery, QueueHandlerResult } from '../contracts/queue.js';
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
import { DEFAULT_RETRY_BUDGET_MS, type StepQueueFactory, stepQueueMaxAttempts } from './step-attempts.js';
import { firstFailureMs, formatDuration, stepGivenUp, type StepBudget, type UnrecordedFailures } from './step-budget.js';

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
   * (derived from `maxAttempts` and `retryBudgetMs`, see {@link stepQueueMaxAttempts}).
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
 * - Attempts of a step are counted in the saved state, so they survive crashes. A step that
 *   fails transiently (a backend down, throttled, timing out) is retried with the queue's
 *   backoff (a backend's `retryAfterMs` honoured) until its first failure is `retryBudgetMs`
 *   old (10 minutes by default); one whose worker died `maxAttempts` times without an answer,
 *   or one that fails for good, fails at once. The document is then `failed` with the step, the
 *   time, the attempts and the last error, and the message goes to the poison queue (`redrive`
 *   runs it again). While the pipeline state itself cannot be read or written (its database
 *   down), this process remembers when that began, so the budget counts the outage too. The
 *   factory is told the queue's delivery cap, derived from both numbers
 *   ({@link stepQueueMaxAttempts}): a safety net that comes after them.
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
  private readonly budget: StepBudget;
  /** Failures of steps this process could not record in the pipeline state, by message (see {@link UnrecordedFailures}). */
  private readonly unrecorded = new Map<string, UnrecordedFailures>();

  constructor(context: PipelineContext, options: DistributedOrchestratorOptions) {
    super(context, options);
    if (typeof options?.queueFactory !== 'function') {
      throw new InvalidInputError('invalid_argument', 'DistributedPipelineOrchestrator needs a queueFactory');
    }
    const retryBudgetMs = options.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
    if (typeof retryBudgetMs !== 'number' || !Number.isFinite(retryBudgetMs) || retryBudgetMs < 0) {
      throw new InvalidInputError('invalid_argument', `retryBudgetMs must be a number of ms >= 0, got ${String(retryBudgetMs)}`);
    }
    this.queueFactory = options.queueFactory;
    this.budget = { retryBudgetMs, maxCrashes: this.maxAttempts };
  }

  /** How long a step's transient failures are retried before its document fails, in ms. */
  get retryBudgetMs(): number {
    return this.budget.retryBudgetMs;
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
        const { retryBudgetMs } = this.budget;
        const queue = this.queueFactory(step, { maxAttempts: stepQueueMaxAttempts(this.maxAttempts, retryBudgetMs), retryBudgetMs });
        if (this.runHandlers) queue.onDequeue((message, delivery) => this.receive(step, message, delivery));
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

  private receive(step: string, message: string, delivery?: QueueDelivery): Promise<QueueHandlerResult> {
    // Work arriving during shutdown is never acknowledged: closing the queue hands it back.
    if (this.stopping) return new Promise<QueueHandlerResult>(() => undefined);
    const work: Promise<QueueHandlerResult> = new Promise((resolve, reject) => {
      this.connected.then(
        () => this.process(step, message, delivery).then(resolve, reject),
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

  private async process(step: string, message: string, delivery?: QueueDelivery): Promise<QueueHandlerResult> {
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
    const key = `${step}\n${pointer.index}\n${pointer.document_id}\n${pointer.execution_id}`;
    const answered = { value: false };
    try {
      return await this.mutex.run(`${pointer.index}/${pointer.document_id}`, () => this.runStep(step, pointer, key, answered, delivery));
    } catch (error) {
      // The state (or the next step's queue) could not be reached: remember when that began, so
      // the retry budget counts it, and whether the step had answered (not a crash).
      const known = this.unrecorded.get(key);
      this.unrecorded.set(key, {
        firstFailureMs: known?.firstFailureMs ?? Date.now(),
        unrecordedAnswers: (known?.unrecordedAnswers ?? 0) + (answered.value ? 1 : 0),
      });
      const fields = { step, index: pointer.index, documentId: pointer.document_id, error: (error as Error)?.message ?? String(error) };
      if (delivery && delivery.attempt >= delivery.maxAttempts) {
        // The queue would poison this message, and the document could not be marked failed: it
        // would stay "in progress" for ever. Queue a fresh copy instead; what this process
        // remembers keeps counting the retry budget.
        try {
          await this.enqueue(step, pointer);
          this.context.logger.warn('queued the step again: its queue gave up while the pipeline state could not be recorded', fields);
          return 'ok';
        } catch {
          // The queue is unreachable too: the original error decides.
        }
      }
      this.context.logger.warn('step could not read or save the pipeline state, will retry', fields);
      throw error;
    }
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

  private async runStep(
    step: string,
    pointer: PipelinePointer,
    key: string,
    answered: { value: boolean },
    delivery: QueueDelivery | undefined,
  ): Promise<QueueHandlerResult> {
    let pipeline = await this.statusStore.read(pointer.index, pointer.document_id);
    if (!pipeline) return this.stateMissing(step, pointer, key);
    this.missingState.found(key);
    if (pipeline.execution_id !== pointer.execution_id || pipeline.failed) {
      this.unrecorded.delete(key);
      return 'ok'; // replaced
    }
    if (pipeline.remaining_steps[0] !== step) {
      this.unrecorded.delete(key);
      const next = pipeline.remaining_steps[0];
      if (next !== undefined && pipeline.completed_steps.at(-1) === step) await this.enqueue(next, pipeline);
      return 'ok';
    }
    const handler = this.handlers.get(step);
    if (!handler) {
      await this.fail(pipeline, key, `no handler for step "${step}"`);
      return 'fatal';
    }
    const previous = pipeline.step_attempts?.step === step ? pipeline.step_attempts : undefined;
    const unrecorded = this.unrecorded.get(key);
    const givenUp = stepGivenUp(step, previous, this.budget, Date.now(), unrecorded);
    if (givenUp) {
      await this.fail(pipeline, key, givenUp);
      return 'fatal';
    }
    const firstMs = firstFailureMs(previous, unrecorded);
    const firstFailure = firstMs === undefined ? undefined : new Date(firstMs).toISOString();
    const attempt = (previous?.count ?? 0) + 1;
    pipeline.step_attempts = {
      step,
      count: attempt,
      answered: (previous?.answered ?? 0) + (unrecorded?.unrecordedAnswers ?? 0),
      ...(firstFailure ? { first_failure: firstFailure } : {}),
      ...(previous?.last_error ? { last_error: previous.last_error } : {}),
    };
    await this.statusStore.write(pipeline);
    this.unrecorded.delete(key); // what it knew is in the state now

    const outcome = await this.invoke(handler, pipeline, undefined, attempt);
    answered.value = true;
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
    if (outcome.result === 'transient') {
      const attempts = {
        step,
        count: attempt,
        answered: (pipeline.step_attempts?.answered ?? 0) + 1,
        first_failure: pipeline.step_attempts?.first_failure ?? new Date().toISOString(),
        last_error: reason,
      };
      // The queue poisons the message after this delivery: the document fails now, with the reason.
      const lastDelivery =
        delivery && delivery.attempt >= delivery.maxAttempts
          ? `step "${step}" failed on the queue's last delivery (${delivery.attempt} of ${delivery.maxAttempts}): ${reason}`
          : undefined;
      const spent = stepGivenUp(step, attempts, this.budget, Date.now()) ?? lastDelivery;
      if (!spent) {
        const elapsed = Date.now() - Date.parse(attempts.first_failure);
        this.context.logger.warn('step failed, will retry', {
          step,
          attempt,
          index: pipeline.index,
          documentId: pipeline.document_id,
          reason,
          failingFor: formatDuration(elapsed),
          retryBudget: formatDuration(this.budget.retryBudgetMs),
        });
        pipeline.step_attempts = attempts;
        await this.statusStore.write(pipeline);
        return outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : 'transient';
      }
      pipeline.step_attempts = attempts;
      await this.fail(pipeline, key, spent);
      return 'fatal';
    }
    await this.fail(pipeline, key, `step "${step}" failed: ${reason}`);
    return 'fatal';
  }

  /** Marks the document failed with the reason, logs it with the document's names, and forgets what this process remembered of the step. */
  private async fail(pipeline: DataPipeline, key: string, reason: string): Promise<void> {
    await this.markFailed(pipeline, reason);
    this.unrecorded.delete(key);
    this.context.logger.error('document failed; redrive runs it again', {
      index: pipeline.index,
      documentId: pipeline.document_id,
      reason,
    });
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
