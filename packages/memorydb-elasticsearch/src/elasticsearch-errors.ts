import { IndexNotFoundError, KmError } from '@km/core';

const CONNECTOR = 'elasticsearch';

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  meta?: { statusCode?: unknown; body?: { error?: { type?: unknown; reason?: unknown; caused_by?: { reason?: unknown } } } };
}

/** The HTTP status of an Elasticsearch client error, if any. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as ErrorShape | null)?.meta?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The `error.type` Elasticsearch answered with, if any. */
export function errorType(error: unknown): string | undefined {
  const type = (error as ErrorShape | null)?.meta?.body?.error?.type;
  return typeof type === 'string' ? type : undefined;
}

function reasonOf(error: unknown): string {
  const body = (error as ErrorShape | null)?.meta?.body?.error;
  const parts = [body?.reason, body?.caused_by?.reason].filter((p): p is string => typeof p === 'string');
  if (parts.length > 0) return parts.join(': ');
  const message = (error as ErrorShape | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** True when Elasticsearch says the index does not exist. */
export const isMissingIndex = (error: unknown): boolean => errorType(error) === 'index_not_found_exception';

/**
 * Elasticsearch client errors (and bulk item errors, `{ type, reason }`) → km errors: a missing
 * index is IndexNotFoundError, a dimension error vector_size_mismatch, 401/403 unauthorized, 429
 * rate_limited, 5xx and connection trouble transient.
 */
export function translateElasticsearchError(error: unknown, index: string): unknown {
  if (error instanceof KmError) return error;
  const reason = reasonOf(error);
  const status = statusOf(error);
  const name = (error as ErrorShape | null)?.name;
  if (isMissingIndex(error)) return new IndexNotFoundError(index, { connector: CONNECTOR, cause: error });
  const dims = /different number of dimensions \[(\d+)\] than defined in the mapping \[(\d+)\]/.exec(reason);
  if (dims) {
    return new KmError('vector_size_mismatch', `index "${index}" has vector size ${dims[2]}, got ${dims[1]}`, {
      connector: CONNECTOR,
      cause: error,
    });
  }
  if (status === 401 || status === 403)
    return new KmError('unauthorized', `Elasticsearch refused the credentials: ${reason}`, { connector: CONNECTOR, cause: error });
  if (status === 429)
    return new KmError('rate_limited', `Elasticsearch: ${reason}`, { connector: CONNECTOR, cause: error, transient: true });
  if (
    (status !== undefined && status >= 500) ||
    name === 'ConnectionError' ||
    name === 'TimeoutError' ||
    name === 'NoLivingConnectionsError'
  ) {
    return new KmError('transient', `Elasticsearch: ${reason}`, { connector: CONNECTOR, cause: error, transient: true });
  }
  return new KmError('upstream_error', `Elasticsearch (${status ?? 'no status'}): ${reason}`, { connector: CONNECTOR, cause: error });
}

/** A bulk item's error as a km error (bulk answers 200 with per-item failures). */
export function bulkItemError(item: { status?: number; error?: { type?: string; reason?: string | null } }, index: string): unknown {
  return translateElasticsearchError({ name: 'ResponseError', meta: { statusCode: item.status, body: { error: item.error } } }, index);
}
