import { CL100KTokenizer } from '@km/core';
import { connectorBackoff } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { O200KTokenizer, OpenAIRequestError, toKmError, tokenizerForModel } from '../src/index.js';

describe('the backoff of OpenAI requests (core connectorBackoff)', () => {
  const options = { maxRetries: 5, initialDelayMs: 100, maxDelayMs: 1000 };
  const low = connectorBackoff(options, () => 0);
  const high = connectorBackoff(options, () => 1);

  it('doubles with jitter between half and all of the ceiling, capped', () => {
    expect(low.delayMs(1)).toBe(50);
    expect(high.delayMs(1)).toBe(100);
    expect(high.delayMs(3)).toBe(400);
    expect(high.delayMs(10)).toBe(1000);
  });

  it("uses the server's Retry-After, capped at maxDelayMs", () => {
    const asked = (ms: number) => new OpenAIRequestError('rate_limited', 'x', { transient: true, retryAfterMs: ms });
    expect(low.delayMs(1, asked(700).retryAfterMs)).toBe(700);
    expect(low.delayMs(1, asked(90_000).retryAfterMs)).toBe(1000);
  });

  it('reads the Retry-After of an API error into the KmError', () => {
    const error = toKmError(new APIError(429, { message: 'slow down' }, 'slow down', new Headers({ 'retry-after': '2' })), 'embeddings');
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(2000);
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
