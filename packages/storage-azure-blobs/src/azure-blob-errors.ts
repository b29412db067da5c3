import { KmError } from '@km/core';
import { isNetworkError } from '@km/core/connector';

/** The parts of an Azure SDK `RestError` that decide its translation. */
export interface RestErrorShape {
  status: number | undefined;
  code: string;
  message: string;
}

/** Status code, Azure error code and first message line of any thrown value. */
export function restErrorShape(error: unknown): RestErrorShape {
  const shape = (error ?? {}) as { statusCode?: unknown; code?: unknown; message?: unknown; details?: { errorCode?: unknown } };
  const status = typeof shape.statusCode === 'number' ? shape.statusCode : undefined;
  const detailCode = typeof shape.details?.errorCode === 'string' ? shape.details.errorCode : '';
  const code = detailCode || (typeof shape.code === 'string' ? shape.code : '');
  const message = typeof shape.message === 'string' ? shape.message.split('\n')[0]! : String(error);
  return { status, code, message };
}

/** A blob or its container is missing. */
export function isNotFound(error: unknown): boolean {
  const { status, code } = restErrorShape(error);
  return status === 404 || /^(BlobNotFound|ContainerNotFound)$/.test(code);
}

/** The container is missing (a write must create it first). */
export function isContainerNotFound(error: unknown): boolean {
  return restErrorShape(error).code === 'ContainerNotFound';
}

/** A conditional request lost: the ETag changed (412) or the blob exists already (409). */
export function isConditionFailed(error: unknown): boolean {
  const { status, code } = restErrorShape(error);
  // Only the conditions' own codes: another 412 (LeaseIdMissing...) is not a lost race.
  return code === 'ConditionNotMet' || code === 'BlobAlreadyExists' || (status === 412 && code === '');
}

/** A byte range starting past the end of the blob (416). */
export function isInvalidRange(error: unknown): boolean {
  const { status, code } = restErrorShape(error);
  return status === 416 || code === 'InvalidRange';
}

/**
 * Azure SDK errors (`RestError`) → km errors: refused credentials are `unauthorized`, 429 and
 * 503 `rate_limited`, other 5xx and network failures `transient`, the rest `upstream_error`.
 * `what` names the blob or operation in the message.
 */
export function translateBlobError(error: unknown, what: string): KmError {
  if (error instanceof KmError) return error;
  const { status, code, message } = restErrorShape(error);
  const options = { connector: 'azureblobs', cause: error };
  if (status === 401 || status === 403 || /AuthenticationFailed|AuthorizationFailure|AuthorizationPermissionMismatch/.test(code)) {
    return new KmError('unauthorized', `Azure Blobs ${what}: the storage account refused the credentials (${code || status})`, options);
  }
  if (status === 429 || status === 503)
    return new KmError('rate_limited', `Azure Blobs ${what}: ${message}`, { ...options, transient: true });
  if (status === undefined || status >= 500 || /REQUEST_SEND_ERROR/.test(`${code} ${message}`) || isNetworkError(error)) {
    return new KmError('transient', `Azure Blobs ${what}: ${message}`, { ...options, transient: true });
  }
  return new KmError('upstream_error', `Azure Blobs ${what} (${status}${code ? ` ${code}` : ''}): ${message}`, options);
}
