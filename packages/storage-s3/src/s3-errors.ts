import { KmError } from '@km/core';
import { isNetworkError, isNetworkErrorCode, writeConflict } from '@km/core/connector';

const CONNECTOR = 's3';

/** What the SDK's service exceptions and Node's network errors carry. */
interface S3ErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  Code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $response?: { headers?: Record<string, string | undefined> };
  cause?: { code?: unknown };
}

const shape = (error: unknown): S3ErrorShape => (error !== null && typeof error === 'object' ? (error as S3ErrorShape) : {});

/** The HTTP status of an S3 error, if it came from the server. */
export function s3Status(error: unknown): number | undefined {
  const status = shape(error).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The S3 error code (`NoSuchKey`, `SlowDown`, …), else the error's name. */
export function s3Code(error: unknown): string {
  const e = shape(error);
  for (const candidate of [e.Code, e.name, e.code]) if (typeof candidate === 'string' && candidate !== 'Error') return candidate;
  return '';
}

const message = (error: unknown): string => {
  const m = shape(error).message;
  return typeof m === 'string' && m !== '' && m !== 'UnknownError' ? m : s3Code(error) || String(error);
};

/** True when the object is missing (GetObject's NoSuchKey, HeadObject's bare 404), not the bucket. */
export function isMissingObject(error: unknown): boolean {
  const code = s3Code(error);
  return code === 'NoSuchKey' || code === 'NotFound' || (s3Status(error) === 404 && code !== 'NoSuchBucket' && code !== 'NoSuchUpload');
}

/** True when a conditional PutObject lost: 412 PreconditionFailed, or 409 ConditionalRequestConflict (a concurrent write). */
export function isConditionalConflict(error: unknown): boolean {
  const code = s3Code(error);
  return code === 'PreconditionFailed' || code === 'ConditionalRequestConflict' || s3Status(error) === 412;
}

/** True when the server answered that a range starts past the end of the object. */
export function isUnsatisfiableRange(error: unknown): boolean {
  return s3Code(error) === 'InvalidRange' || s3Status(error) === 416;
}

const AUTH_CODES = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'CredentialsProviderError',
  'AllAccessDisabled',
]);
const THROTTLE_CODES = new Set(['SlowDown', 'TooManyRequests', 'RequestLimitExceeded', 'Throttling', 'ThrottlingException']);
const TRANSIENT_CODES = new Set([
  'InternalError',
  'ServiceUnavailable',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'OperationAborted',
]);

/**
 * S3 SDK errors → km errors: a missing bucket is `not_configured`; 401/403 and credential
 * failures `unauthorized`; SlowDown/429 `rate_limited` (transient); 5xx, timeouts and connection
 * failures `transient`; anything else `upstream_error`. KmErrors pass through. Missing objects
 * and lost conditional writes are for the caller to recognise first ({@link isMissingObject},
 * {@link isConditionalConflict}).
 */
export function translateS3Error(error: unknown, bucket: string): KmError {
  if (error instanceof KmError) return error;
  const code = s3Code(error);
  const status = s3Status(error);
  const text = message(error);
  const options = { connector: CONNECTOR, cause: error };
  if (code === 'NoSuchBucket') {
    return new KmError('not_configured', `bucket "${bucket}" does not exist: create it, or set createBucket`, options);
  }
  if (AUTH_CODES.has(code) || status === 401 || status === 403) {
    return new KmError('unauthorized', `S3 refused the credentials for bucket "${bucket}" (${code || status}): ${text}`, options);
  }
  if (THROTTLE_CODES.has(code) || status === 429) {
    const retryAfter = Number(shape(error).$response?.headers?.['retry-after']);
    return new KmError('rate_limited', `S3 (${code || status}): ${text}`, {
      ...options,
      transient: true,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined,
    });
  }
  const causeCode = shape(error).cause?.code;
  if (
    TRANSIENT_CODES.has(code) ||
    isNetworkErrorCode(code) ||
    (status !== undefined && status >= 500) ||
    (typeof causeCode === 'string' && TRANSIENT_CODES.has(causeCode)) ||
    isNetworkError(error)
  ) {
    return new KmError('transient', `S3 (${code || status || 'no answer'}): ${text}`, { ...options, transient: true });
  }
  return new KmError('upstream_error', `S3 (${code || status || 'no status'}): ${text}`, options);
}

/** A lost conditional write as km's transient `write_conflict`. */
export function conditionalConflict(error: unknown, index: string, documentId: string, fileName: string): KmError {
  return writeConflict(index, documentId, fileName, CONNECTOR, error);
}

/** km's `file_not_found` for a missing object. */
export function fileNotFound(index: string, documentId: string, fileName: string, cause?: unknown): KmError {
  return new KmError('file_not_found', `file "${fileName}" of document "${documentId}" in index "${index}" not found`, {
    connector: CONNECTOR,
    ...(cause !== undefined ? { cause } : {}),
  });
}
