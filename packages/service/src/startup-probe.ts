import { type Logger, KmError } from '@km/core';
import { isTransient, withTimeout } from '@km/core/connector';

/** How long the start waits for a backend's first answer before it goes on without it. */
export const STARTUP_PROBE_TIMEOUT_MS = 15_000;

/** One backend to ask before the start: its name for messages, and a cheap read (list indexes). */
export interface StartupProbe {
  name: string;
  check: () => Promise<unknown>;
}

/**
 * Asks every backend (memory DBs, content storage) one cheap question before the service or a
 * worker starts, so that a backend which can never work (a Redis without the query engine, a
 * MongoDB without vector search, refused credentials, a missing bucket) stops the start with
 * its own error instead of failing every request afterwards. A backend that is only unreachable
 * now (a transient error, or no answer within `timeoutMs`) is logged and left to the retries of
 * later calls: a database that is still starting must not keep km down.
 */
export async function probeBackends(
  probes: readonly StartupProbe[],
  logger: Logger,
  timeoutMs: number = STARTUP_PROBE_TIMEOUT_MS,
): Promise<void> {
  await Promise.all(
    probes.map(async ({ name, check }) => {
      const timedOut = () => new KmError('transient', `${name} did not answer within ${timeoutMs} ms`, { transient: true });
      try {
        await withTimeout(check(), timeoutMs, timedOut);
      } catch (error) {
        if (!isTransient(error)) throw error;
        logger.warn(`${name} is not reachable at start (${(error as Error).message}); km starts and retries on use`, { backend: name });
      }
    }),
  );
}
