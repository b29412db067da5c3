import { setTimeout as sleep } from 'node:timers/promises';
import type { StepOutcome } from '../contracts/pipeline-step-handler.js';
import { KmError } from '../errors/km-error.js';
import { BackoffPolicy } from '../retry/backoff-policy.js';
import { importAttributes } from '../tracing/pipeline-spans.js';
import { withSpan } from '../tracing/with-span.js';
import { Steps } from '../models/constants.js';
import type { DataPipeline } from '../models/data-pipeline.js';
import type { Document } from '../models/document.js';
import { deleteDocumentEverywhere } from '../handlers/delete-document-handler.js';
import { deleteIndexEverywhere } from '../handlers/delete-index-handler.js';
import type { PipelineContext } from './pipeline-context.js';
import {
  BasePipelineOrchestrator,
  type OrchestratorOptions,
  type PipelineOrchestrator,
  type PipelineRequest,
} from './pipeline-orchestrator.js';

export type { OrchestratorOptions, PipelineRequest } from './pipeline-orchestrator.js';

/** Steps after which there is no state left to save. */
export const DELETION_STEPS: ReadonlySet<string> = new Set<string>([Steps.deleteDocument, Steps.deleteIndex]);

/**
 * Runs a document's steps one after another in this process and returns when done. The
 * state is saved after every step; a failed step, or a file that failed on its own, leaves the
 * document `failed` with the reason and the import rejects with `pipeline_failed`;
 * {@link resume} continues from the saved state.
 */
export class InProcessPipelineOrchestrator extends BasePipelineOrchestrator implements PipelineOrchestrator {
  private readonly backoff: BackoffPolicy;

  constructor(context: PipelineContext, options: OrchestratorOptions = {}) {
    super(context, options);
    this.backoff = new BackoffPolicy({ initialDelayMs: options.retryDelayMs ?? 200 });
  }

  async importDocument(index: string, document: Document, request: PipelineRequest = {}): Promise<string> {
    const steps = this.checkSteps(request.steps);
    this.checkFiles(document);
    return withSpan('km.pipeline.import', importAttributes(index, document.id, steps), () =>
      this.mutex.run(`${index}/${document.id}`, async () => {
        const pipeline = await this.prepare(index, document, steps, request.args ?? {}, request.sourceUrl);
        await this.run(pipeline, request.signal);
        return document.id;
      }),
    );
  }

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

  /** Saves the records again in this process (see `recoverLostRecords`); a failure leaves the document failed. */
  protected override async rerunSteps(pipeline: DataPipeline): Promise<void> {
    await this.statusStore.write(pipeline);
    await this.run(pipeline);
  }

  /** Runs `pipeline.remaining_steps` in order, saving after each; throws `pipeline_failed` on failure (a failed file included). */
  async run(pipeline: DataPipeline, signal?: AbortSignal): Promise<DataPipeline> {
    while (pipeline.remaining_steps.length > 0) {
      const step = pipeline.remaining_steps[0]!;
      const handler = this.handlers.get(step);
      if (!handler) return this.fail(pipeline, `no handler for step "${step}"`);
      let outcome: StepOutcome | undefined;
      for (let attempt = 1; ; attempt++) {
        outcome = await this.invoke(handler, pipeline, signal, attempt);
        this.statusStore.carry(pipeline, outcome.pipeline);
        pipeline = outcome.pipeline;
        if (outcome.result !== 'transient' || attempt >= this.maxAttempts) break;
        this.context.logger.warn('step failed, retrying', { step, attempt, reason: outcome.error });
        await sleep(this.backoff.delayMs(attempt), undefined, signal ? { signal } : {});
      }
      if (outcome.result !== 'success') {
        return this.fail(pipeline, `step "${step}" failed: ${outcome.error ?? outcome.result}`);
      }
      pipeline.remaining_steps.shift();
      pipeline.completed_steps.push(step);
      // After a deletion step there is nothing left to record the state in.
      if (DELETION_STEPS.has(step)) return pipeline;
      if (pipeline.remaining_steps.length > 0) await this.statusStore.write(pipeline);
    }
    await this.complete(pipeline);
    if (pipeline.failed)
      throw new KmError('pipeline_failed', `document "${pipeline.document_id}" failed: ${pipeline.error ?? 'unknown reason'}`);
    return pipeline;
  }

  private async fail(pipeline: DataPipeline, reason: string): Promise<never> {
    await this.markFailed(pipeline, reason);
    throw new KmError('pipeline_failed', `document "${pipeline.document_id}" failed: ${reason}`);
  }
}
