import { STATUS_CODES } from 'node:http';
import { KmError, type KmErrorCode } from '@km/core';
import type { ProblemDetails } from '@km/wire';

/** RFC 9457 problem details, as ASP.NET (and so Kernel Memory) writes them, plus km's error code (@km/wire's type). */
export type { ProblemDetails } from '@km/wire';

/** An error the HTTP layer answers with a given status. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'HttpProblem';
  }
}

const TYPES: Record<number, string> = {
  400: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
  401: 'https://tools.ietf.org/html/rfc9110#section-15.5.2',
  403: 'https://tools.ietf.org/html/rfc9110#section-15.5.4',
  404: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
  405: 'https://tools.ietf.org/html/rfc9110#section-15.5.6',
  408: 'https://tools.ietf.org/html/rfc9110#section-15.5.9',
  413: 'https://tools.ietf.org/html/rfc9110#section-15.5.14',
  409: 'https://tools.ietf.org/html/rfc9110#section-15.5.10',
  415: 'https://tools.ietf.org/html/rfc9110#section-15.5.16',
  416: 'https://tools.ietf.org/html/rfc9110#section-15.5.17',
  500: 'https://tools.ietf.org/html/rfc9110#section-15.6.1',
  503: 'https://tools.ietf.org/html/rfc9110#section-15.6.4',
};

/** HTTP status of each km error code. */
const STATUS_OF: Partial<Record<KmErrorCode, number>> = {
  invalid_argument: 400,
  invalid_index_name: 400,
  invalid_document_id: 400,
  invalid_file_name: 400,
  invalid_tag: 400,
  invalid_filter: 400,
  unsupported_filter: 400,
  handler_not_found: 400,
  empty_content: 400,
  unsupported_content: 415,
  vector_size_mismatch: 409,
  write_conflict: 409,
  document_busy: 409,
  sync_busy: 409,
  index_not_found: 404,
  collection_not_found: 404,
  document_not_found: 404,
  file_not_found: 404,
  content_too_large: 413,
  input_too_long: 400,
  not_configured: 503,
  unsupported_operation: 501,
  transient: 503,
  rate_limited: 503,
  upstream_error: 503,
  unauthorized: 503, // the service's own credentials for a backend were refused
  aborted: 503,
};

/** Builds the body of an error response. */
export function problem(status: number, detail: string, extra: Partial<ProblemDetails> = {}): ProblemDetails {
  return {
    type: TYPES[status] ?? 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...extra,
  };
}

/** Seconds a client is asked to wait after a 503 whose error gives no time of its own. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * Maps any thrown value to a status and problem body; unknown errors are 500 without internals.
 * A 503 from a backend (down, throttled, timing out) comes with `retryAfterSeconds` for the
 * `Retry-After` header: the error's `retryAfterMs` (what the backend asked), else {@link DEFAULT_RETRY_AFTER_SECONDS}.
 */
export function toProblem(error: unknown): { status: number; body: ProblemDetails; internal: boolean; retryAfterSeconds?: number } {
  if (error instanceof HttpProblem) {
    return { status: error.status, body: problem(error.status, error.message, error.code ? { code: error.code } : {}), internal: false };
  }
  if (error instanceof KmError) {
    const status = STATUS_OF[error.code] ?? 500;
    const detail = status === 500 ? 'internal error' : error.message.replace(/^\[km\]\s*/, '');
    const result = { status, body: problem(status, detail, { code: error.code }), internal: status >= 500 };
    if (status !== 503) return result;
    const asked = error.retryAfterMs;
    const seconds = asked !== undefined && Number.isFinite(asked) && asked > 0 ? Math.ceil(asked / 1000) : DEFAULT_RETRY_AFTER_SECONDS;
    return { ...result, retryAfterSeconds: Math.min(seconds, 3600) };
  }
  const fastify = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    const status = fastify.statusCode;
    const detail = typeof fastify.message === 'string' ? fastify.message : (STATUS_CODES[status] ?? 'bad request');
    return { status, body: problem(status, detail, typeof fastify.code === 'string' ? { code: fastify.code } : {}), internal: false };
  }
  return { status: 500, body: problem(500, 'internal error'), internal: true };
}
