import { KmError } from '@km/core';
import { CONNECTOR } from './errors.js';

/** Throws `aborted` (a KmError, not the signal's DOMException) when `signal` is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new KmError('aborted', `${what}: aborted`, { connector: CONNECTOR, cause: signal.reason });
}
