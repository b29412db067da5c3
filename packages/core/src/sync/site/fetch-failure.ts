import { InvalidInputError, KmError } from '../../errors/km-error.js';

/** The error of a fetch that makes a site listing fail: the same code and transience, saying what failed. */
export function fetchFailure(what: string, cause: unknown): KmError {
  if (cause instanceof KmError && cause.code === 'aborted') return cause;
  if (cause instanceof InvalidInputError) return new InvalidInputError(cause.code, `${what}: ${reasonOf(cause)}`, { cause });
  if (cause instanceof KmError) {
    return new KmError(cause.code, `${what}: ${reasonOf(cause)}`, { cause, transient: cause.transient, retryAfterMs: cause.retryAfterMs });
  }
  return new KmError('transient', `${what}: ${reasonOf(cause)}`, { cause, transient: true });
}

/** An error's message without km's `[km] ` prefix, for a skip reason or a wrapping message. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.replace(/^\[km\] /, '') : String(error);
}

/** Throws `aborted` when `signal` has aborted. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new KmError('aborted', 'the site listing was aborted', { cause: signal.reason });
}
