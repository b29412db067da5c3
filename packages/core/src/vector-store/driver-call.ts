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
    throw toKmError(e, connector, what, signal);
  }
}

/**
 * What a caller of a driver sees of an error: a `KmError` as it is; any other error (a
 * `TypeError`, a driver's own error) as `aborted` when `signal` was aborted, else as
 * `upstream_error` naming the connector and the operation, with the original as `cause`.
 *
 * ```ts
 * toKmError(new TypeError('x is undefined'), 'qdrant', 'search'); // KmError upstream_error "search failed: x is undefined"
 * ```
 */
export function toKmError(error: unknown, connector: string, what: string, signal?: AbortSignal): KmError {
  if (error instanceof KmError) return error;
  if (signal?.aborted) return new KmError('aborted', `${what}: aborted`, { connector, cause: signal.reason });
  const message = error instanceof Error ? error.message : String(error);
  return new KmError('upstream_error', `${what} failed: ${message}`, { connector, cause: error });
}

/** Throws `aborted` when `signal` is aborted. */
export function throwIfAborted(connector: string | undefined, what: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new KmError('aborted', `${what}: aborted`, { connector, cause: signal.reason });
}
