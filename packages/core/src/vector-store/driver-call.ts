import { KmError } from '../errors/km-error.js';

/**
 * Runs one driver call for a collection operation: refuses to start once `signal` is aborted
 * (`aborted`), keeps the `KmError`s a driver throws, turns an error thrown while the signal
 * was aborted into `aborted`, and wraps any other error in `upstream_error` naming the
 * connector, with the original as `cause`.
 *
 * ```ts
 * const names = await callDriver(driver.name, 'list collections', undefined, () => driver.listCollections());
 * ```
 */
export async function callDriver<T>(connector: string, what: string, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  throwIfAborted(connector, what, signal);
  try {
    return await call();
  } catch (e) {
    if (e instanceof KmError) throw e;
    if (signal?.aborted) throw new KmError('aborted', `${what}: aborted`, { connector, cause: signal.reason });
    const message = e instanceof Error ? e.message : String(e);
    throw new KmError('upstream_error', `${what} failed: ${message}`, { connector, cause: e });
  }
}

/** Throws `aborted` when `signal` is aborted. */
export function throwIfAborted(connector: string | undefined, what: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new KmError('aborted', `${what}: aborted`, { connector, cause: signal.reason });
}
