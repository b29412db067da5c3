import { IndexNotFoundError, KmError } from '@km/core';
import { isNetworkError } from '@km/core/connector';

const CONNECTOR = 'qdrant';

/** The HTTP status of a Qdrant client error, if it carries one. */
export function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The server's own message (`{ status: { error } }`), else the error's message. */
export function qdrantMessage(error: unknown): string {
  const data = (error as { data?: { status?: { error?: unknown } } } | null)?.data;
  if (typeof data?.status?.error === 'string') return data.status.error;
  return error instanceof Error ? error.message : String(error);
}

/** True when Qdrant says the collection does not exist. */
export function isMissingCollection(error: unknown): boolean {
  return httpStatus(error) === 404 || /Collection .* (doesn't|does not) exist/i.test(qdrantMessage(error));
}

/**
 * Qdrant client errors → km errors: a missing collection is IndexNotFoundError, a dimension
 * error vector_size_mismatch, 429 rate_limited, 5xx, timeouts and network failures transient.
 */
export function translateQdrantError(error: unknown, index: string): unknown {
  if (error instanceof KmError) return error;
  const message = qdrantMessage(error);
  const status = httpStatus(error);
  if (isMissingCollection(error)) return new IndexNotFoundError(index, { connector: CONNECTOR, cause: error });
  const dims = /expected dim: (\d+), got (\d+)/i.exec(message);
  if (dims) {
    return new KmError('vector_size_mismatch', `index "${index}" has vector size ${dims[1]}, got ${dims[2]}`, {
      connector: CONNECTOR,
      cause: error,
    });
  }
  if (status === 401 || status === 403)
    return new KmError('unauthorized', `Qdrant refused the API key: ${message}`, { connector: CONNECTOR, cause: error });
  const name = (error as { name?: unknown } | null)?.name;
  if (status === 429 || name === 'QdrantClientResourceExhaustedError') {
    return new KmError('rate_limited', `Qdrant: ${message}`, { connector: CONNECTOR, cause: error, transient: true });
  }
  if ((status !== undefined && status >= 500) || name === 'QdrantClientTimeoutError' || isNetworkError(error)) {
    return new KmError('transient', `Qdrant: ${message}`, { connector: CONNECTOR, cause: error, transient: true });
  }
  return new KmError('upstream_error', `Qdrant (${status ?? 'no status'}): ${message}`, { connector: CONNECTOR, cause: error });
}
