import { BackoffPolicy } from '@km/core/connector';

/** How requests are retried. */
export interface RetryOptions {
  /** Retries after the first attempt. @default 4 */
  maxRetries?: number;
  /** Ceiling of the first delay, in ms; doubles each retry. @default 500 */
  initialDelayMs?: number;
  /** Longest delay between two attempts, in ms, a server's Retry-After included. @default 30000 */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 30_000 };

/**
 * The backoff of Ollama requests: core's policy with equal jitter (between half and all of the
 * ceiling, so a server that is loading a model always gets a little time), or the server's Retry-After.
 */
export function ollamaBackoff(options: Required<RetryOptions>): BackoffPolicy {
  return new BackoffPolicy({ initialDelayMs: options.initialDelayMs, maxDelayMs: options.maxDelayMs, jitter: 'equal' });
}
