import type { IQueue } from '../contracts/queue.js';
import { BackoffPolicy } from '../retry/backoff-policy.js';

/**
 * In process, attempts of a step that fails transiently before its document fails; over queues,
 * deliveries of a step that end with no answer at all (the worker running it died) before its
 * document fails. Unless `OrchestratorOptions.maxAttempts` says otherwise.
 */
export const DEFAULT_STEP_ATTEMPTS = 3;

/**
 * Over queues, how long a step that keeps failing transiently (a backend down, throttled, timing
 * out) is retried before its document fails, counted from the step's first failure: 10 minutes,
 * unless `OrchestratorOptions.retryBudgetMs` says otherwise. A failure that is not transient fails
 * the document at once.
 */
export const DEFAULT_RETRY_BUDGET_MS = 10 * 60_000;

/** The retry delays of a step queue that {@link stepQueueMaxAttempts} assumes when the queue does not say: 1 s doubling to 60 s. */
const QUEUE_BACKOFF = { initialDelayMs: 1000, maxDelayMs: 60_000 };

/**
 * The delivery cap of a step queue: a safety net, never the decision. The distributed
 * orchestrator decides when a document fails (after `stepAttempts` deliveries that got no answer,
 * or when its transient failures outlast `retryBudgetMs`) and answers `fatal` then; the queue only
 * poisons a message unread after more deliveries than that can take: enough for its retry delays
 * (`backoff`, full jitter, so on average half of each ceiling) to span twice the budget, plus the
 * deliveries without an answer, plus two (one to find the count spent after a worker died in its
 * last attempt and mark the document failed, one more for a worker that dies while doing that).
 *
 * ```ts
 * stepQueueMaxAttempts(3); // 5: no budget, as before
 * stepQueueMaxAttempts(3, 600_000); // 50: 45 retries of 1 s doubling to 60 s span 2 × 10 minutes on average
 * ```
 */
export function stepQueueMaxAttempts(
  stepAttempts: number,
  retryBudgetMs = 0,
  backoff: { initialDelayMs: number; maxDelayMs: number } = QUEUE_BACKOFF,
): number {
  const attempts = Math.max(1, Math.floor(stepAttempts)) + 2;
  if (!(retryBudgetMs > 0)) return attempts;
  const policy = new BackoffPolicy({ ...backoff, jitter: 'none' });
  let retries = 0;
  // Full jitter waits half a ceiling on average: ceilings worth 4 budgets span 2 on average.
  for (let spanned = 0; spanned < 4 * retryBudgetMs && retries < 10_000; ) spanned += Math.max(1, policy.ceilingMs(++retries));
  return attempts + retries;
}

/** What the distributed orchestrator tells a queue factory about the queue of a step. */
export interface StepQueueSettings {
  /**
   * Deliveries before the queue poisons a message: {@link stepQueueMaxAttempts} of the
   * orchestrator's step attempts and retry budget, for retry delays of 1 s doubling to 60 s.
   */
  maxAttempts: number;
  /** The orchestrator's retry budget, in ms: a queue with other retry delays derives its own cap (`stepQueueMaxAttempts(3, retryBudgetMs, delays)`). */
  retryBudgetMs: number;
}

/**
 * Makes the queue client of a pipeline step. The orchestrator calls it once per step; a factory
 * that builds km's queues passes `settings.maxAttempts` on, so the step attempts and the retry
 * budget stay the numbers to configure.
 *
 * ```ts
 * const factory: StepQueueFactory = (step, { maxAttempts }) => new FileQueue({ directory: './km-data/queues', maxAttempts });
 * ```
 */
export type StepQueueFactory = (step: string, settings: StepQueueSettings) => IQueue;
