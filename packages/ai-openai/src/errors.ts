import { KmError, type KmErrorCode } from '@km/core';
import { isRetryableHttpStatus, parseRetryAfterMs } from '@km/core/connector';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';

/** Connector name carried by every error of this package. */
export const CONNECTOR = 'openai';

/** HTTP statuses worth retrying: timeouts, conflicts, rate limits and server errors (core's `isRetryableHttpStatus`). */
export const isRetryableStatus: (status: number) => boolean = isRetryableHttpStatus;

/** A KmError with the HTTP status of the failed request (and, from KmError, the server's Retry-After). */
export class OpenAIRequestError extends KmError {
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;

  constructor(
    code: KmErrorCode,
    message: string,
    options: { status?: number; retryAfterMs?: number; transient: boolean; cause?: unknown },
  ) {
    super(code, message, { connector: CONNECTOR, transient: options.transient, cause: options.cause, retryAfterMs: options.retryAfterMs });
    this.name = 'OpenAIRequestError';
    this.status = options.status;
  }
}

function codeOf(status: number, apiCode: string | null | undefined): KmErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_configured';
  if (apiCode === 'context_length_exceeded' || apiCode === 'string_above_max_length') return 'input_too_long';
  if (status === 400 || status === 422) return 'invalid_argument';
  return isRetryableStatus(status) ? 'transient' : 'upstream_error';
}

/**
 * Maps whatever the SDK threw to a KmError: transient for connection failures, timeouts, 408,
 * 409, 429 and 5xx; fatal for the rest (bad request, auth, unknown model or deployment).
 * An abort becomes `aborted`.
 */
export function toKmError(e: unknown, what: string, signal?: AbortSignal): KmError {
  if (e instanceof KmError) return e;
  if (e instanceof APIUserAbortError || signal?.aborted || (e instanceof Error && e.name === 'AbortError')) {
    return new KmError('aborted', `${what}: aborted`, { connector: CONNECTOR, cause: e });
  }
  if (e instanceof APIConnectionError) {
    return new OpenAIRequestError('transient', `${what}: ${e.message}`, { transient: true, cause: e });
  }
  if (e instanceof APIError && typeof e.status === 'number') {
    const code = codeOf(e.status, e.code);
    const hint = code === 'not_configured' ? ' (check the model or deployment name and the base URL)' : '';
    return new OpenAIRequestError(code, `${what}: HTTP ${e.status} ${e.message}${hint}`, {
      status: e.status,
      retryAfterMs: parseRetryAfterMs(e.headers),
      transient: isRetryableStatus(e.status),
      cause: e,
    });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new KmError('upstream_error', `${what}: ${message}`, { connector: CONNECTOR, cause: e });
}
