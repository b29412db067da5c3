import type { Logger } from '@km/core';
import { BackoffPolicy, withRetries } from '@km/core/connector';
import { type ErrorContext, toKmError } from './errors.js';

/** How requests are retried (by km: the SDK's own retries are off). */
export interface RetryOptions {
  /** Retries after the first attempt. @default 5 */
  maxRetries?: number;
  /** Ceiling of the first delay, in ms; doubles each retry. @default 500 */
  initialDelayMs?: number;
  /** Longest delay between two attempts, in ms, a server's `retry-after` included. @default 60000 */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 5, initialDelayMs: 500, maxDelayMs: 60_000 };

/**
 * Runs `attempt` until it succeeds, a fatal error occurs, or the retries are spent, waiting as
 * core's {@link BackoffPolicy} says (equal jitter), or as the server's `retry-after-ms` /
 * `retry-after` says. Every error leaves as a KmError; the last transient one keeps
 * `transient: true`, so the pipeline can retry the whole step later.
 */
export async function withAnthropicRetries<T>(
  what: string,
  attempt: () => Promise<T>,
  options: Required<RetryOptions>,
  context: ErrorContext & { logger?: Logger | undefined } = {},
): Promise<T> {
  const { logger, ...errorContext } = context;
  try {
    return await withRetries(
      async () => {
        try {
          return await attempt();
        } catch (e) {
          throw toKmError(e, what, errorContext);
        }
      },
      {
        maxAttempts: options.maxRetries + 1,
        backoff: new BackoffPolicy({ initialDelayMs: options.initialDelayMs, maxDelayMs: options.maxDelayMs, jitter: 'equal' }),
        signal: context.signal,
        onRetry: ({ error, retry, delayMs }) =>
          logger?.warn('anthropic request failed, retrying', { what, retry, delayMs, error: (error as Error).message }),
      },
    );
  } catch (e) {
    throw toKmError(e, what, errorContext);
  }
}
