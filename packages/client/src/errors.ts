import { KmError, type KmErrorCode } from '@km/core';

/** An error answer of the service, with its ProblemDetails. */
export class MemoryWebClientError extends KmError {
  constructor(
    code: KmErrorCode,
    message: string,
    readonly status: number,
    readonly problem: Record<string, unknown> | undefined,
    readonly requestId: string | undefined,
    transient: boolean,
    retryAfterMs?: number,
  ) {
    super(code, message, { transient, connector: 'web-client', retryAfterMs });
    this.name = 'MemoryWebClientError';
  }
}

const KNOWN_CODES = new Set<string>([
  'invalid_argument',
  'invalid_index_name',
  'invalid_document_id',
  'invalid_file_name',
  'invalid_tag',
  'invalid_filter',
  'unsupported_filter',
  'index_not_found',
  'collection_not_found',
  'document_not_found',
  'document_busy',
  'sync_busy',
  'file_not_found',
  'vector_size_mismatch',
  'empty_content',
  'content_too_large',
  'unsupported_content',
  'storage_corrupt',
  'not_configured',
  'unsupported_operation',
  'pipeline_failed',
  'handler_not_found',
  'aborted',
  'transient',
  'unauthorized',
  'rate_limited',
  'input_too_long',
  'upstream_error',
]);

/** Turns an error response (ProblemDetails or not) into a typed error. */
export async function toClientError(res: Response, method: string, path: string): Promise<MemoryWebClientError> {
  let problem: Record<string, unknown> | undefined;
  const text = await res.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) problem = parsed as Record<string, unknown>;
  } catch {
    // not JSON: keep the text
  }
  const detail =
    typeof problem?.detail === 'string'
      ? problem.detail
      : typeof problem?.title === 'string'
        ? problem.title
        : text.slice(0, 300) || res.statusText;
  const given = typeof problem?.code === 'string' ? problem.code : undefined;
  const code = (given && KNOWN_CODES.has(given) ? given : codeOfStatus(res.status)) as KmErrorCode;
  const transient = res.status === 429 || res.status >= 500;
  const requestId = res.headers.get('x-request-id') ?? (typeof problem?.requestId === 'string' ? problem.requestId : undefined);
  return new MemoryWebClientError(
    code,
    `${method} ${path.split('?')[0]} failed (${res.status}): ${detail}`,
    res.status,
    problem,
    requestId,
    transient,
    retryAfterMsOf(res.headers.get('retry-after')),
  );
}

/** A `Retry-After` (seconds, or an HTTP date) in ms; undefined when absent or unreadable. */
export function retryAfterMsOf(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function codeOfStatus(status: number): KmErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'document_not_found';
  if (status === 413) return 'content_too_large';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'upstream_error';
  return 'invalid_argument';
}
