import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { isConditionFailed, isInvalidRange, isNotFound, translateBlobError } from '../src/index.js';

describe('translateBlobError', () => {
  it('maps REST errors to typed km errors', () => {
    expect(isKmError(translateBlobError({ statusCode: 403, code: 'AuthenticationFailed', message: 'no' }, 'x'), 'unauthorized')).toBe(true);
    expect(
      isKmError(translateBlobError({ statusCode: 403, code: 'AuthorizationPermissionMismatch', message: 'no' }, 'x'), 'unauthorized'),
    ).toBe(true);
    const throttled = translateBlobError({ statusCode: 429, code: 'TooManyRequests', message: 'slow down' }, 'x');
    expect(isKmError(throttled, 'rate_limited') && throttled.transient).toBe(true);
    const busy = translateBlobError({ statusCode: 503, code: 'ServerBusy', message: 'busy' }, 'x');
    expect(isKmError(busy, 'rate_limited') && busy.transient).toBe(true);
    const down = translateBlobError({ statusCode: 500, code: 'InternalError', message: 'oops' }, 'x');
    expect(isKmError(down, 'transient') && down.transient).toBe(true);
    const network = translateBlobError({ name: 'RestError', code: 'REQUEST_SEND_ERROR', message: 'connect ECONNREFUSED 127.0.0.1:1' }, 'x');
    expect(isKmError(network, 'transient') && network.transient).toBe(true);
    const bad = translateBlobError({ statusCode: 400, code: 'InvalidBlobOrBlock', message: 'bad' }, 'write of "a/b/c"');
    expect(isKmError(bad, 'upstream_error') && !bad.transient).toBe(true);
    expect(bad.message).toContain('write of "a/b/c" (400 InvalidBlobOrBlock)');
  });

  it('reads the storage error code from the response details when the SDK puts it there', () => {
    expect(isConditionFailed({ statusCode: 409, details: { errorCode: 'BlobAlreadyExists' }, message: 'exists' })).toBe(true);
    expect(isConditionFailed({ statusCode: 409, code: 'LeaseIdMissing', message: 'lease' })).toBe(false);
    expect(isConditionFailed({ statusCode: 412, code: 'ConditionNotMet', message: 'changed' })).toBe(true);
    expect(isNotFound({ statusCode: 404, details: { errorCode: 'ContainerNotFound' } })).toBe(true);
    expect(isNotFound({ statusCode: 403 })).toBe(false);
    expect(isInvalidRange({ statusCode: 416, code: 'InvalidRange' })).toBe(true);
  });
});
