import type { Logger } from '@km/core';
import { BackoffPolicy, withRetries } from '@km/core/connector';
import { toKmError } from './errors.js';

/** How requests are retried. */
export interface RetryOptions {
  /** Retries after the first attempt. @default 5 */
  maxRetries?: number;
  /** Ceiling of the first delay; doubles each retry. @default 500 */
  initialDelayMs?: number;
  /** Longest delay between two attempts, including a server's Retry-After. @default 60000 */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 5, initialDelayMs: 500, maxDelayMs: 60_000 };

/**
 * The backoff of OpenAI requests: core's policy with equal jitter (between half and all of the
 * ceiling, so a rate-limited client always waits a little), or the server's Retry-After.
 */
export function openAIBackoff(options: Required<RetryOptions>, random?: () => number): BackoffPolicy {
  return new BackoffPolicy({ initialDelayMs: options.initialDelayMs, maxDelayMs: options.maxDelayMs, jitter: 'equal' }, random);
}

/**
 * Runs `attempt` until it succeeds, a fatal error occurs, or the retries are spent. Every
 * error leaves as a KmError; the last transient one keeps `transient: true`, so the pipeline
 * can retry the whole step later.
 */
export async function withOpenAIRetries<T>(
  what: string,
  attempt: () => Promise<T>,
  options: Required<RetryOptions>,
  context: { signal?: AbortSignal | undefined; logger?: Logger | undefined } = {},
): Promise<T> {
  const { signal, logger } = context;
  try {
    return await withRetries(
      async () => {
        try {
          return await attempt();
        } catch (e) {
          throw toKmError(e, what, signal);
        }
      },
      {
        maxAttempts: options.maxRetries + 1,
        backoff: openAIBackoff(options),
        signal,
        onRetry: ({ error, retry, delayMs }) =>
          logger?.warn('openai request failed, retrying', { what, retry, delayMs, error: (error as Error).message }),
      },
    );
  } catch (e) {
    throw toKmError(e, what, signal);
  }
}
