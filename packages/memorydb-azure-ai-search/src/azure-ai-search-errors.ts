import { IndexNotFoundError, KmError } from '@km/core';
import { isNetworkErrorCode, parseRetryAfterMs, type HeaderReader } from '@km/core/connector';

const CONNECTOR = 'azureaisearch';

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  statusCode?: unknown;
  response?: { headers?: HeaderReader };
}

/** The HTTP status of an SDK error (`RestError.statusCode`), if any. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as ErrorShape | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function messageOf(error: unknown): string {
  const message = (error as ErrorShape | null)?.message;
  return typeof message === 'string' && message !== '' ? message : String(error);
}

/**
 * SDK errors (`RestError`: `statusCode`, `code`, `response.headers`) → km errors: 404 on an index
 * is IndexNotFoundError, 401/403 unauthorized, 429 rate_limited and 503 (the service's "too
 * busy") transient, both with the server's `Retry-After`, other 5xx, timeouts and connection
 * failures transient, anything else upstream_error. Aborts are rethrown as they are.
 */
export function translateAzureSearchError(error: unknown, index: string): unknown {
  if (error instanceof KmError) return error;
  const shape = error as ErrorShape | null;
  if (shape?.name === 'AbortError') return error;
  const status = statusOf(error);
  const message = messageOf(error);
  const retryAfterMs = parseRetryAfterMs(shape?.response?.headers);
  if (status === 404) return new IndexNotFoundError(index, { connector: CONNECTOR, cause: error });
  if (status === 401 || status === 403) {
    return new KmError('unauthorized', `Azure AI Search refused the credentials (${status}): ${message}`, {
      connector: CONNECTOR,
      cause: error,
    });
  }
  if (status === 429) {
    return new KmError('rate_limited', `Azure AI Search: ${message}`, {
      connector: CONNECTOR,
      cause: error,
      transient: true,
      retryAfterMs,
    });
  }
  const code = typeof shape?.code === 'string' ? shape.code : '';
  if (
    (status !== undefined && (status >= 500 || status === 408)) ||
    (status === undefined && (shape?.name === 'RestError' || code === 'REQUEST_SEND_ERROR' || isNetworkErrorCode(code)))
  ) {
    return new KmError('transient', `Azure AI Search (${status ?? (code || 'no status')}): ${message}`, {
      connector: CONNECTOR,
      cause: error,
      transient: true,
      retryAfterMs,
    });
  }
  return new KmError('upstream_error', `Azure AI Search (${status ?? 'no status'}): ${message}`, { connector: CONNECTOR, cause: error });
}

/** Per-document statuses the service documents as worth retrying: 409 version conflict, 422 index temporarily unavailable. */
const RETRYABLE_DOCUMENT_STATUSES = new Set([409, 422]);

/**
 * A failed item of an indexing batch (the batch answers 200 or 207 with per-document results)
 * as a km error: a version conflict (409) or an index temporarily unavailable (422) is
 * `transient`, like a busy service (503); other statuses as {@link translateAzureSearchError} maps them.
 */
export function indexingError(result: { statusCode: number; errorMessage?: string; key: string }, index: string): unknown {
  const message = `document ${result.key}: ${result.errorMessage ?? 'not indexed'}`;
  const error = { name: 'RestError', statusCode: result.statusCode, message };
  if (RETRYABLE_DOCUMENT_STATUSES.has(result.statusCode)) {
    return new KmError('transient', `Azure AI Search (${result.statusCode}): ${message}`, {
      connector: CONNECTOR,
      cause: error,
      transient: true,
    });
  }
  return translateAzureSearchError(error, index);
}
