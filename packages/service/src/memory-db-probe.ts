import { type IMemoryDb, type Logger, KmError } from '@km/core';
import { isTransient, withTimeout } from '@km/core/connector';

/** How long the start waits for a memory DB's first answer before it goes on without it. */
export const MEMORY_DB_PROBE_TIMEOUT_MS = 15_000;

/**
 * Asks every memory DB for its indexes once, before the service or a worker starts, so that a
 * backend which can never work (a Redis without the query engine, a MongoDB without vector
 * search, refused credentials) stops the start with its own error instead of failing every
 * request afterwards. A backend that is only unreachable now (a transient error, or no answer
 * within `timeoutMs`) is logged and left to the retries of later calls: a database that is
 * still starting must not keep km down.
 */
export async function probeMemoryDbs(
  dbs: readonly IMemoryDb[],
  logger: Logger,
  timeoutMs: number = MEMORY_DB_PROBE_TIMEOUT_MS,
): Promise<void> {
  await Promise.all(
    dbs.map(async (db) => {
      const name = db.constructor.name;
      const timedOut = () => new KmError('transient', `${name} did not answer within ${timeoutMs} ms`, { transient: true });
      try {
        await withTimeout(db.getIndexes(), timeoutMs, timedOut);
      } catch (error) {
        if (!isTransient(error)) throw error;
        logger.warn(`memory DB ${name} is not reachable at start (${(error as Error).message}); km starts and retries on use`, {
          memoryDb: name,
        });
      }
    }),
  );
}
