import type { StepAttempts } from '../models/data-pipeline.js';

/** When the distributed orchestrator stops retrying a step. */
export interface StepBudget {
  /** Transient failures are retried until the first one is this old, in ms. */
  retryBudgetMs: number;
  /** Attempts that ended with no answer (the worker died) before the document fails. */
  maxCrashes: number;
}

/**
 * What this process remembers of a step it could not record in the pipeline state (the state
 * could not be read or written, e.g. its database was down): when the trouble began, and how
 * many attempts answered without the answer reaching the state (not crashes).
 */
export interface UnrecordedFailures {
  firstFailureMs: number;
  unrecordedAnswers: number;
}

/** `1 h 2 min`, `3 min 5 s`, `42 s`, `350 ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.floor(m / 60)} h`;
}

/** When the step first failed: the state's record or this process's memory, whichever is earlier. */
export function firstFailureMs(attempts: StepAttempts | undefined, unrecorded: UnrecordedFailures | undefined): number | undefined {
  const recorded = attempts?.first_failure ? Date.parse(attempts.first_failure) : Number.NaN;
  const remembered = unrecorded?.firstFailureMs ?? Number.NaN;
  const earliest = Math.min(Number.isNaN(recorded) ? Infinity : recorded, Number.isNaN(remembered) ? Infinity : remembered);
  return Number.isFinite(earliest) ? earliest : undefined;
}

/**
 * Why a step must not be tried again, or undefined: it died `maxCrashes` times with no answer
 * (attempts started minus those that answered, the answers this process could not record
 * aside), or its transient failures began `retryBudgetMs` ago or more. The reason names the
 * step, the time spent, the attempts and the last error.
 */
export function stepGivenUp(
  step: string,
  attempts: StepAttempts | undefined,
  budget: StepBudget,
  nowMs: number,
  unrecorded?: UnrecordedFailures,
): string | undefined {
  const started = attempts?.count ?? 0;
  const crashes = Math.max(0, started - (attempts?.answered ?? 0) - (unrecorded?.unrecordedAnswers ?? 0));
  const last = attempts?.last_error;
  if (crashes >= budget.maxCrashes) {
    return `step "${step}" was started ${started} times and the worker running it stopped ${crashes} times before finishing${last ? `; last error: ${last}` : ''}`;
  }
  const first = firstFailureMs(attempts, unrecorded);
  if (first === undefined || nowMs - first < budget.retryBudgetMs) return undefined;
  const why = last ?? 'the pipeline state could not be read or written';
  return `step "${step}" kept failing for ${formatDuration(nowMs - first)} (retry budget ${formatDuration(budget.retryBudgetMs)}, ${started} attempts): ${why}`;
}
