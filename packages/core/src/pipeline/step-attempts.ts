import type { IQueue } from '../contracts/queue.js';

/** Attempts of a pipeline step before its document fails, unless `OrchestratorOptions.maxAttempts` says otherwise. */
export const DEFAULT_STEP_ATTEMPTS = 3;

/**
 * The delivery cap of a step queue, derived from the step attempts: `stepAttempts + 2`.
 *
 * The distributed orchestrator decides when a document fails: it counts a step's attempts in
 * the saved state and answers `fatal` after the last one. The queue's cap is only a safety net
 * for a message whose consumer dies without answering. One delivery past the step attempts lets
 * the orchestrator find the count spent after a worker died in the last attempt and mark the
 * document failed; one more covers a worker that dies while doing that. Only then does the
 * queue poison the message unread.
 *
 * ```ts
 * stepQueueMaxAttempts(3); // 5
 * ```
 */
export function stepQueueMaxAttempts(stepAttempts: number): number {
  return Math.max(1, Math.floor(stepAttempts)) + 2;
}

/** What the distributed orchestrator tells a queue factory about the queue of a step. */
export interface StepQueueSettings {
  /** Deliveries before the queue poisons a message: {@link stepQueueMaxAttempts} of the orchestrator's step attempts. */
  maxAttempts: number;
}

/**
 * Makes the queue client of a pipeline step. The orchestrator calls it once per step; a factory
 * that builds km's queues passes `settings.maxAttempts` on, so the step attempts stay the one
 * number to configure.
 *
 * ```ts
 * const factory: StepQueueFactory = (step, { maxAttempts }) => new FileQueue({ directory: './km-data/queues', maxAttempts });
 * ```
 */
export type StepQueueFactory = (step: string, settings: StepQueueSettings) => IQueue;
