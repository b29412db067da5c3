import { isKmError, KmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { isConditionalConflict, isMissingObject, translateS3Error } from '../src/index.js';

const s3Error = (name: string, status?: number, extra: object = {}) =>
  Object.assign(new Error(`${name} message`), { name, $metadata: status === undefined ? {} : { httpStatusCode: status }, ...extra });

describe('translateS3Error', () => {
  const cases: Array<[string, unknown, string, boolean]> = [
    ['NoSuchBucket', s3Error('NoSuchBucket', 404), 'not_configured', false],
    ['AccessDenied 403', s3Error('AccessDenied', 403), 'unauthorized', false],
    ['InvalidAccessKeyId', s3Error('InvalidAccessKeyId', 403), 'unauthorized', false],
    ['ExpiredToken (400)', s3Error('ExpiredToken', 400), 'unauthorized', false],
    ['no credentials in the chain', s3Error('CredentialsProviderError'), 'unauthorized', false],
    ['SlowDown 503', s3Error('SlowDown', 503), 'rate_limited', true],
    ['429', s3Error('TooManyRequests', 429), 'rate_limited', true],
    ['InternalError 500', s3Error('InternalError', 500), 'transient', true],
    ['RequestTimeout (400)', s3Error('RequestTimeout', 400), 'transient', true],
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }), 'transient', true],
    ['socket hang up', new Error('socket hang up'), 'transient', true],
    ['TimeoutError', s3Error('TimeoutError'), 'transient', true],
    ['InvalidArgument 400', s3Error('InvalidArgument', 400), 'upstream_error', false],
  ];
  for (const [what, error, code, transient] of cases) {
    it(`${what} → ${code}${transient ? ' (transient)' : ''}`, () => {
      const km = translateS3Error(error, 'bkt');
      expect([km.code, km.transient, km.connector, km.cause]).toEqual([code, transient, 's3', error]);
    });
  }

  it('keeps the server Retry-After of a throttled request', () => {
    const km = translateS3Error(s3Error('SlowDown', 503, { $response: { headers: { 'retry-after': '3' } } }), 'bkt');
    expect(km.retryAfterMs).toBe(3000);
  });

  it('passes KmErrors through', () => {
    const original = new KmError('file_not_found', 'x');
    expect(translateS3Error(original, 'bkt')).toBe(original);
    expect(isKmError(translateS3Error('text', 'bkt'), 'upstream_error')).toBe(true);
  });
});

describe('missing objects and lost conditional writes', () => {
  it('NoSuchKey and a bare 404 are a missing object; NoSuchBucket is not', () => {
    expect(isMissingObject(s3Error('NoSuchKey', 404))).toBe(true);
    expect(isMissingObject(s3Error('NotFound', 404))).toBe(true);
    expect(isMissingObject(s3Error('UnknownError', 404))).toBe(true);
    expect(isMissingObject(s3Error('NoSuchBucket', 404))).toBe(false);
    expect(isMissingObject(s3Error('AccessDenied', 403))).toBe(false);
  });

  it('412 PreconditionFailed and 409 ConditionalRequestConflict are lost races; other 409s are not', () => {
    expect(isConditionalConflict(s3Error('PreconditionFailed', 412))).toBe(true);
    expect(isConditionalConflict(s3Error('ConditionalRequestConflict', 409))).toBe(true);
    expect(isConditionalConflict(s3Error('OperationAborted', 409))).toBe(false);
  });
});
