import { setTimeout as sleep } from 'node:timers/promises';

/** How {@link pollUntil} paces itself. */
export interface PollOptions {
  timeoutMs: number;
  intervalMs: number;
  signal?: AbortSignal;
}

/**
 * Calls `attempt` until it returns a value other than `undefined`, and returns that value,
 * waiting `intervalMs` between calls. An error `attempt` throws ends the wait with it; once
 * `timeoutMs` has passed without a value the wait rejects with `timedOut()`; `signal` aborts it.
 */
export async function pollUntil<T>(attempt: () => Promise<T | undefined>, timedOut: () => Error, options: PollOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw timedOut();
    await sleep(options.intervalMs, undefined, options.signal ? { signal: options.signal } : {});
  }
}
