import { CL100KTokenizer, KmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { O200KTokenizer, OpenAIRequestError, retryAfterMs, retryDelayMs, tokenizerForModel } from '../src/index.js';

describe('retryAfterMs', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500' }))).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  const options = { maxRetries: 5, initialDelayMs: 100, maxDelayMs: 1000 };
  const plain = new KmError('transient', 'x', { transient: true });

  it('doubles with jitter between half and all of the ceiling, capped', () => {
    expect(retryDelayMs(1, plain, options, () => 0)).toBe(50);
    expect(retryDelayMs(1, plain, options, () => 1)).toBe(100);
    expect(retryDelayMs(3, plain, options, () => 1)).toBe(400);
    expect(retryDelayMs(10, plain, options, () => 1)).toBe(1000);
  });

  it("uses the server's Retry-After, capped at maxDelayMs", () => {
    const asked = (ms: number) => new OpenAIRequestError('rate_limited', 'x', { transient: true, retryAfterMs: ms });
    expect(retryDelayMs(1, asked(700), options, () => 0)).toBe(700);
    expect(retryDelayMs(1, asked(90_000), options, () => 0)).toBe(1000);
  });
});

describe('tokenizerForModel', () => {
  it('gives o200k to GPT-4o and later, cl100k to GPT-4 and embeddings', () => {
    expect(tokenizerForModel('gpt-4o-mini')).toBeInstanceOf(O200KTokenizer);
    expect(tokenizerForModel('gpt-5')).toBeInstanceOf(O200KTokenizer);
    expect(tokenizerForModel('o3-mini')).toBeInstanceOf(O200KTokenizer);
    expect(tokenizerForModel('gpt-4')).toBeInstanceOf(CL100KTokenizer);
    expect(tokenizerForModel('text-embedding-3-small')).toBeInstanceOf(CL100KTokenizer);
  });

  it('the two encodings really differ, and both join back to the text', () => {
    const text = 'Das Verständnis künstlicher Intelligenz: ニューラルネットワーク';
    const o200k = new O200KTokenizer();
    const cl100k = new CL100KTokenizer();
    expect(o200k.countTokens(text)).not.toBe(cl100k.countTokens(text));
    expect(o200k.getTokens('plain words here').join('')).toBe('plain words here');
    expect(o200k.countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });
});
