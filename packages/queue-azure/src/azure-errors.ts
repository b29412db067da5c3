import { KmError } from '@km/core';
import { isNetworkError } from '@km/core/connector';

/**
 * Azure SDK errors (`RestError`) → km errors: refused credentials are `unauthorized`, 429
 * and 503 `rate_limited`, other 5xx and network failures transient, the rest `upstream_error`.
 */
export function translateAzureError(error: unknown, queue: string): KmError {
  if (error instanceof KmError) return error;
  const shape = (error ?? {}) as { statusCode?: unknown; code?: unknown; message?: unknown };
  const status = typeof shape.statusCode === 'number' ? shape.statusCode : undefined;
  const code = typeof shape.code === 'string' ? shape.code : '';
  const message = typeof shape.message === 'string' ? shape.message.split('\n')[0]! : String(error);
  const [what, options] = [`Azure queue "${queue}"`, { connector: 'azure-queue', cause: error }];
  if (status === 401 || status === 403 || /AuthenticationFailed|AuthorizationFailure/.test(code)) {
    return new KmError('unauthorized', `${what}: the storage account refused the credentials (${code || status})`, options);
  }
  if (status === 429 || status === 503) return new KmError('rate_limited', `${what}: ${message}`, { ...options, transient: true });
  if (status === undefined || status >= 500 || /REQUEST_SEND_ERROR/.test(`${code} ${message}`) || isNetworkError(error)) {
    return new KmError('transient', `${what}: ${message}`, { ...options, transient: true });
  }
  return new KmError('upstream_error', `${what} (${status}${code ? ` ${code}` : ''}): ${message}`, options);
}
