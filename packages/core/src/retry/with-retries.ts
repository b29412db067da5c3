import { setTimeout as sleep } from 'node:timers/promises';
import { KmError } from '../errors/km-error.js';
import type { BackoffPolicy } from './backoff-policy.js';

/** Options of {@link withRetries}. */
export interface WithRetriesOptions {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** The delays between attempts; a KmError's `retryAfterMs` (a server's Retry-After) wins. */
  backoff: BackoffPolicy;
  /** Whether an error is worth another attempt. @default a KmError with `transient: true` */
  isRetryable?: (error: unknown) => boolean;
  /** Stops the waiting; the call then rejects with `aborted`. */
  signal?: AbortSignal | undefined;
  /** Told before each wait (for a log line). */
  onRetry?: (info: { error: unknown; retry: number; delayMs: number }) => void;
}

/**
 * Runs `attempt` until it succeeds, throws an error that is not retryable, or `maxAttempts`
 * are spent; the last error is thrown as it was. Between attempts it waits as `backoff` says.
 *
 * ```ts
 * const page = await withRetries(() => fetchPage(url), { maxAttempts: 3, backoff: new BackoffPolicy({ initialDelayMs: 500 }) });
 * ```
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: WithRetriesOptions): Promise<T> {
  const isRetryable = options.isRetryable ?? isTransient;
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts));
  for (let n = 1; ; n++) {
    options.signal?.throwIfAborted();
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= maxAttempts || options.signal?.aborted || !isRetryable(error)) throw error;
      const delayMs = options.backoff.delayMs(n, error instanceof KmError ? error.retryAfterMs : undefined);
      options.onRetry?.({ error, retry: n, delayMs });
      try {
        await sleep(delayMs, undefined, options.signal ? { signal: options.signal } : {});
      } catch (abort) {
        throw new KmError('aborted', 'aborted while waiting to retry', { cause: options.signal?.reason ?? abort });
      }
    }
  }
}

/** True for a KmError marked transient (the default retry test). */
export function isTransient(error: unknown): boolean {
  return error instanceof KmError && error.transient;
}
