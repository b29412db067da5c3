/**
 * Error codes of Node's sockets and DNS lookups that mean the other side could not be reached or
 * dropped the connection. undici (Node's `fetch`) adds its own, all starting `UND_ERR_`; see
 * {@link isNetworkErrorCode}.
 */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
]);

/** A network error code, or words of a failed connection, anywhere in an error message. */
const NETWORK_MESSAGE = new RegExp(`${[...NETWORK_ERROR_CODES].join('|')}|socket hang up|fetch failed`, 'i');

/** How deep {@link isNetworkError} follows `cause`. */
const MAX_CAUSE_DEPTH = 4;

/**
 * Whether `code` (an error's `code`) is a network error: one of {@link NETWORK_ERROR_CODES}, or
 * undici's `UND_ERR_...`.
 *
 * ```ts
 * isNetworkErrorCode('ECONNREFUSED') // true
 * isNetworkErrorCode('ENOENT') // false
 * ```
 */
export function isNetworkErrorCode(code: unknown): code is string {
  return typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || code.startsWith('UND_ERR_'));
}

/**
 * Whether `error` (an error, or a thrown string) is a failed or dropped connection: its `code`, or that of a `cause` (4 deep,
 * as `fetch` wraps the socket's error in `TypeError: fetch failed`), is a network code (see
 * {@link isNetworkErrorCode}), or its message names one or says `socket hang up` or `fetch failed`.
 * A connector treats such an error as transient.
 *
 * ```ts
 * if (isNetworkError(error)) return new KmError('transient', message, { connector, cause: error, transient: true });
 * ```
 */
export function isNetworkError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth <= MAX_CAUSE_DEPTH; depth++) {
    if (typeof current === 'string') return NETWORK_MESSAGE.test(current);
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (isNetworkErrorCode(code)) return true;
    if (typeof message === 'string' && NETWORK_MESSAGE.test(message)) return true;
    current = cause;
  }
  return false;
}
