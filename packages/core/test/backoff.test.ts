import { describe, expect, it } from 'vitest';
import { BackoffPolicy, parseRetryAfterMs, withRetries } from '../src/connector.js';
import { KmError, isKmError } from '../src/index.js';

describe('BackoffPolicy', () => {
  it('doubles the ceiling each retry, capped at maxDelayMs', () => {
    const policy = new BackoffPolicy({ initialDelayMs: 100, maxDelayMs: 1000, jitter: 'none' });
    expect([1, 2, 3, 4, 5, 60].map((retry) => policy.delayMs(retry))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('full jitter draws from [0, ceiling], equal jitter from [ceiling / 2, ceiling]', () => {
    const full = (r: number) => new BackoffPolicy({ initialDelayMs: 100, maxDelayMs: 1000 }, () => r);
    expect(full(0).delayMs(3)).toBe(0);
    expect(full(0.5).delayMs(3)).toBe(200);
    expect(full(1).delayMs(3)).toBe(400);
    const equal = (r: number) => new BackoffPolicy({ initialDelayMs: 100, maxDelayMs: 1000, jitter: 'equal' }, () => r);
    expect(equal(0).delayMs(1)).toBe(50);
    expect(equal(1).delayMs(1)).toBe(100);
    expect(equal(1).delayMs(3)).toBe(400);
    expect(equal(1).delayMs(10)).toBe(1000);
  });

  it("a server's Retry-After replaces the computed delay, capped at maxDelayMs", () => {
    const policy = new BackoffPolicy({ initialDelayMs: 100, maxDelayMs: 1000 }, () => 0);
    expect(policy.delayMs(1, 700)).toBe(700);
    expect(policy.delayMs(1, 90_000)).toBe(1000);
    expect(policy.delayMs(1, 0)).toBe(0);
  });

  it('refuses negative or non-finite delays and unknown jitter', () => {
    expect(() => new BackoffPolicy({ initialDelayMs: -1 })).toThrow(/initialDelayMs/);
    expect(() => new BackoffPolicy({ maxDelayMs: Number.NaN })).toThrow(/maxDelayMs/);
    expect(() => new BackoffPolicy({ jitter: 'half' as never })).toThrow(/jitter/);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '1500' }))).toBe(1500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
  });
});

describe('withRetries', () => {
  const quick = new BackoffPolicy({ initialDelayMs: 1, maxDelayMs: 5 });
  const transient = () => new KmError('transient', 'flaky', { transient: true });

  it('retries transient errors until one attempt succeeds', async () => {
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls++;
        if (calls < 3) throw transient();
        return 'done';
      },
      { maxAttempts: 5, backoff: quick },
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('gives up after maxAttempts with the last error, and never retries a fatal one', async () => {
    let calls = 0;
    await expect(withRetries(() => (calls++, Promise.reject(transient())), { maxAttempts: 3, backoff: quick })).rejects.toThrow(/flaky/);
    expect(calls).toBe(3);
    calls = 0;
    const fatal = new KmError('unauthorized', 'no');
    await expect(withRetries(() => (calls++, Promise.reject(fatal)), { maxAttempts: 3, backoff: quick })).rejects.toBe(fatal);
    expect(calls).toBe(1);
  });

  it("waits as the error's retryAfterMs says", async () => {
    const delays: number[] = [];
    let calls = 0;
    await withRetries(
      async () => {
        if (++calls === 1) throw new KmError('rate_limited', 'slow down', { transient: true, retryAfterMs: 3 });
      },
      { maxAttempts: 2, backoff: new BackoffPolicy({ initialDelayMs: 1000 }), onRetry: ({ delayMs }) => delays.push(delayMs) },
    );
    expect(delays).toEqual([3]);
  });

  it('an abort while waiting rejects with aborted', async () => {
    const controller = new AbortController();
    const slow = new BackoffPolicy({ initialDelayMs: 60_000, jitter: 'none' });
    const call = withRetries(() => Promise.reject(transient()), { maxAttempts: 2, backoff: slow, signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(call).rejects.toSatisfy((e: unknown) => isKmError(e, 'aborted'));
  });
});
