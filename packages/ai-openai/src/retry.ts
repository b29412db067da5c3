import { setTimeout as sleep } from 'node:timers/promises';
import type { KmError, Logger } from '@km/core';
import { OpenAIRequestError, toKmError } from './errors.js';

/** How requests are retried. */
export interface RetryOptions {
  /** Retries after the first attempt. @default 5 */
  maxRetries?: number;
  /** First delay; doubles each retry. @default 500 */
  initialDelayMs?: number;
  /** Longest delay between two attempts, including a server's Retry-After. @default 60000 */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 5, initialDelayMs: 500, maxDelayMs: 60_000 };

/**
 * Delay before retry number `attempt` (1-based): the server's Retry-After when it gave one,
 * else exponential backoff with full jitter, capped at `maxDelayMs`.
 */
export function retryDelayMs(attempt: number, error: KmError, options: Required<RetryOptions>, random: () => number = Math.random): number {
  const asked = error instanceof OpenAIRequestError ? error.retryAfterMs : undefined;
  if (asked !== undefined) return Math.min(asked, options.maxDelayMs);
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Runs `attempt` until it succeeds, a fatal error occurs, or the retries are spent. Every
 * error leaves as a KmError; the last transient one keeps `transient: true`, so the pipeline
 * can retry the whole step later.
 */
export async function withRetries<T>(
  what: string,
  attempt: () => Promise<T>,
  options: Required<RetryOptions>,
  context: { signal?: AbortSignal; logger?: Logger } = {},
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      context.signal?.throwIfAborted();
      return await attempt();
    } catch (e) {
      const error = toKmError(e, what, context.signal);
      if (!error.transient || retry >= options.maxRetries) throw error;
      const delay = retryDelayMs(retry + 1, error, options);
      context.logger?.warn('openai request failed, retrying', { what, retry: retry + 1, delayMs: delay, error: error.message });
      try {
        await sleep(delay, undefined, { signal: context.signal });
      } catch (abort) {
        throw toKmError(abort, what, context.signal);
      }
    }
  }
}
