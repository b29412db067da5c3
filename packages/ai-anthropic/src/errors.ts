import { KmError, type KmErrorCode } from '@km/core';
import { isRetryableHttpStatus, parseRetryAfterMs } from '@km/core/connector';
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';

/** Connector name carried by every error of this package. */
export const CONNECTOR = 'anthropic';

/**
 * HTTP statuses worth retrying: timeouts, conflicts, rate limits and server errors, 529
 * (`overloaded_error`) included (core's `isRetryableHttpStatus`).
 */
export const isRetryableStatus: (status: number) => boolean = isRetryableHttpStatus;

/** Types of an `error` event that another try cannot get past; any other type (`overloaded_error`, `api_error`, …) is transient. */
const FATAL_ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'billing_error',
]);

/** A KmError with the HTTP status and Anthropic error type of the failed request. */
export class AnthropicRequestError extends KmError {
  /** HTTP status, when the server answered with one (an `error` event in a stream has none). */
  readonly status: number | undefined;
  /** Anthropic's error type, e.g. `overloaded_error`, `invalid_request_error`. */
  readonly type: string | undefined;

  constructor(
    code: KmErrorCode,
    message: string,
    options: {
      status?: number | undefined;
      type?: string | undefined;
      retryAfterMs?: number | undefined;
      transient: boolean;
      cause?: unknown;
    },
  ) {
    super(code, message, { connector: CONNECTOR, transient: options.transient, cause: options.cause, retryAfterMs: options.retryAfterMs });
    this.name = 'AnthropicRequestError';
    this.status = options.status;
    this.type = options.type;
  }
}

/** Where the error happened: `model` names the model in a 404's message; `streaming` marks errors met while reading the events. */
export interface ErrorContext {
  signal?: AbortSignal | undefined;
  model?: string | undefined;
  /** The response had begun: a broken connection is transient. */
  streaming?: boolean;
}

function codeOf(status: number, type: string | null, apiMessage: string | null): KmErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_configured';
  if (status === 413) return 'content_too_large';
  if (status === 400 && /prompt is too long|context window/i.test(apiMessage ?? '')) return 'input_too_long';
  if (status === 400 || status === 422 || type === 'invalid_request_error') return 'invalid_argument';
  return isRetryableStatus(status) ? 'transient' : 'upstream_error';
}

/**
 * Maps whatever the SDK threw to a KmError: `aborted` for an abort; transient for connection
 * failures, timeouts, 408, 409, 429, 5xx and 529 (overloaded); `unauthorized` for 401/403,
 * `invalid_argument` for 400, `not_configured` naming the model for 404, `content_too_large`
 * for 413. While streaming, a dropped connection or an `error` event (e.g. `overloaded_error`)
 * is transient.
 */
export function toKmError(e: unknown, what: string, context: ErrorContext = {}): KmError {
  if (e instanceof KmError) return e;
  const { signal } = context;
  if (e instanceof APIUserAbortError || signal?.aborted || (e instanceof Error && e.name === 'AbortError')) {
    return new KmError('aborted', `${what}: aborted`, { connector: CONNECTOR, cause: e });
  }
  if (e instanceof APIConnectionError) {
    return new AnthropicRequestError('transient', `${what}: ${e.message}`, { transient: true, cause: e });
  }
  if (e instanceof APIError && typeof e.status === 'number') {
    const code = codeOf(e.status, e.type, e.apiMessage);
    const hint =
      code === 'not_configured'
        ? ` (model "${context.model ?? '?'}" not found: check the model id, or the base URL)`
        : code === 'unauthorized'
          ? ' (check the API key: KM_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY)'
          : '';
    return new AnthropicRequestError(code, `${what}: HTTP ${e.status} ${e.apiMessage ?? e.message}${hint}`, {
      status: e.status,
      type: e.type ?? undefined,
      retryAfterMs: parseRetryAfterMs(e.headers),
      transient: isRetryableStatus(e.status),
      cause: e,
    });
  }
  if (e instanceof APIError) {
    // An `error` event inside a stream that had already begun (HTTP 200).
    const type = e.type ?? 'error';
    const transient = !FATAL_ERROR_TYPES.has(type);
    const code: KmErrorCode = transient ? (type === 'rate_limit_error' ? 'rate_limited' : 'transient') : 'upstream_error';
    return new AnthropicRequestError(code, `${what}: ${type} event: ${e.apiMessage ?? e.message}`, { type, transient, cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  if (context.streaming) {
    return new AnthropicRequestError('transient', `${what}: the stream broke: ${message}`, { transient: true, cause: e });
  }
  return new KmError('upstream_error', `${what}: ${message}`, { connector: CONNECTOR, cause: e });
}
