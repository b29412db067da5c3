import { describe, expect, it } from 'vitest';
import { isNetworkError, isNetworkErrorCode, NETWORK_ERROR_CODES, poisonQueueName } from '../src/connector.js';

describe('network errors', () => {
  it('knows the socket and DNS codes, and undici codes by their prefix', () => {
    for (const code of NETWORK_ERROR_CODES) expect(isNetworkErrorCode(code)).toBe(true);
    expect(isNetworkErrorCode('UND_ERR_CONNECT_TIMEOUT')).toBe(true);
    expect(isNetworkErrorCode('ENOENT')).toBe(false);
    expect(isNetworkErrorCode(404)).toBe(false);
  });

  it('finds the code on the error or a cause (fetch failed wraps it), or in the message', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6333'), { code: 'ECONNREFUSED' });
    expect(isNetworkError(refused)).toBe(true);
    expect(isNetworkError(new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } }))).toBe(true);
    expect(isNetworkError(new Error('outer', { cause: new Error('socket hang up') }))).toBe(true);
    expect(isNetworkError('read ECONNRESET')).toBe(true);
    expect(isNetworkError(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
    expect(isNetworkError(new Error('Bad Request'))).toBe(false);
    expect(isNetworkError(undefined)).toBe(false);
  });
});

describe('poisonQueueName', () => {
  it("is Kernel Memory's name: the queue's name and -poison", () => {
    expect(poisonQueueName('pipelines')).toBe('pipelines-poison');
  });
});
