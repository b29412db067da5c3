import { APIConnectionError, APIError, RateLimitError } from '@anthropic-ai/sdk';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { ClaudeTokenEstimator, claudeModelInfo, isRetryableStatus, toKmError } from '../src/index.js';

const text = 'Kernel Memory turns documents into an index you can search and ask questions about, citing its sources.';

describe('ClaudeTokenEstimator', () => {
  it('counts o200k tokens times 1.2, rounded up', () => {
    const o200kCount = o200k.countTokens(text);
    expect(new ClaudeTokenEstimator().countTokens(text)).toBe(Math.ceil(o200kCount * 1.2));
    expect(new ClaudeTokenEstimator(1).countTokens(text)).toBe(o200kCount);
    expect(new ClaudeTokenEstimator().countTokens('')).toBe(0);
  });

  it('splits text into pieces that join back to it, special-token markers included', () => {
    const input = `${text} <|endoftext|>`;
    const pieces = new ClaudeTokenEstimator().getTokens(input);
    expect(pieces.join('')).toBe(input);
    expect(pieces.length).toBeGreaterThan(10);
  });

  it('refuses a factor that is not positive', () => {
    expect(() => new ClaudeTokenEstimator(0)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => new ClaudeTokenEstimator(Number.NaN)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('model catalog', () => {
  it('knows the context window and sampling parameters of Claude ids, aliases and snapshots', () => {
    for (const id of [
      'claude-sonnet-4-6',
      'claude-haiku-4-5-20251001',
      'claude-opus-4-1',
      'claude-3-7-sonnet-latest',
      'claude-3-haiku-20240307',
    ]) {
      expect(claudeModelInfo(id), id).toEqual({ contextWindow: 200_000, sampling: true });
    }
    for (const id of ['claude-opus-4-7', 'claude-opus-4-8-20260301', 'claude-sonnet-5', 'claude-opus-5-5', 'claude-fable-5-2']) {
      expect(claudeModelInfo(id), id).toEqual({ sampling: false });
    }
    expect(claudeModelInfo('claude-2.1')).toBeUndefined();
    expect(claudeModelInfo('gpt-4o')).toBeUndefined();
  });
});

describe('toKmError', () => {
  const headers = (h: Record<string, string>) => new Headers(h);

  it('retries 408, 409, 429, 5xx and 529 only', () => {
    expect([408, 409, 429, 500, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  it('keeps the server retry-after of a 429', () => {
    const e = new RateLimitError(
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      undefined,
      headers({ 'retry-after': '2' }),
    );
    expect(toKmError(e, 'x')).toMatchObject({ code: 'rate_limited', transient: true, retryAfterMs: 2000, status: 429 });
  });

  it('a connection error is transient; an abort is aborted', () => {
    expect(toKmError(new APIConnectionError({ message: 'ECONNRESET' }), 'x')).toMatchObject({ code: 'transient', transient: true });
    const controller = new AbortController();
    controller.abort();
    expect(toKmError(new Error('whatever'), 'x', { signal: controller.signal })).toMatchObject({ code: 'aborted' });
  });

  it('an error event is transient unless its type is a request error', () => {
    const event = (type: string) =>
      new APIError(undefined, { type: 'error', error: { type, message: type } }, undefined, new Headers(), type as never);
    expect(toKmError(event('overloaded_error'), 'x')).toMatchObject({ code: 'transient', transient: true });
    expect(toKmError(event('api_error'), 'x')).toMatchObject({ code: 'transient', transient: true });
    expect(toKmError(event('invalid_request_error'), 'x')).toMatchObject({ code: 'upstream_error', transient: false });
  });

  it('a plain error is transient only once the stream had begun', () => {
    expect(toKmError(new TypeError('terminated'), 'x', { streaming: true })).toMatchObject({ code: 'transient', transient: true });
    expect(toKmError(new TypeError('terminated'), 'x')).toMatchObject({ code: 'upstream_error', transient: false });
  });
});
