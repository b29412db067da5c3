import type { DataPipeline } from '../models/data-pipeline.js';

/** Outcome of a step: transient results are retried, fatal ones fail the document. */
export type StepResult = 'success' | 'transient' | 'fatal';

/** What a handler returns: the outcome and the pipeline with its changes. */
export interface StepOutcome {
  result: StepResult;
  pipeline: DataPipeline;
  /** Why the step did not succeed; lands in the pipeline's `error`. */
  error?: string;
  /** For a transient result: when to try again, in ms, if a backend said so (a throttling `Retry-After`). */
  retryAfterMs?: number;
}

/**
 * One step of the ingestion pipeline, registered by step name. Handlers are idempotent:
 * a file records the steps that processed it, so running a step twice does no harm.
 */
export interface IPipelineStepHandler {
  readonly stepName: string;
  invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome>;
}
