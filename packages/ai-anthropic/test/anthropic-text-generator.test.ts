import Anthropic from '@anthropic-ai/sdk';
import type { TextGenerationOptions, TokenUsage } from '@km/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { AnthropicTextGenerator, type AnthropicTextGeneratorOptions } from '../src/index.js';
import { useFakeAnthropicServer } from './fake-anthropic-server.js';

const { server, url } = useFakeAnthropicServer();
beforeEach(() => {
  server.reset();
  server.answer = 'The answer is forty-two, as the documents say.';
});

function generator(options: Partial<AnthropicTextGeneratorOptions> = {}) {
  return new AnthropicTextGenerator({
    apiKey: server.apiKey,
    baseURL: url(),
    model: 'claude-haiku-4-5',
    retry: { initialDelayMs: 5, maxDelayMs: 1000 },
    ...options,
  });
}

async function run(g: AnthropicTextGenerator, options: TextGenerationOptions = {}): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of g.generate('What is the answer?', options)) pieces.push(piece);
  return pieces;
}

/** Runs a generation to its end or its error: the pieces it yielded and the error it threw. */
async function settle(g: AnthropicTextGenerator, options: TextGenerationOptions = {}) {
  const pieces: string[] = [];
  try {
    for await (const piece of g.generate('What is the answer?', options)) pieces.push(piece);
    return { pieces, error: undefined };
  } catch (error) {
    return { pieces, error: error as Record<string, unknown> };
  }
}

describe('AnthropicTextGenerator', () => {
  it('streams the answer in pieces', async () => {
    const pieces = await run(generator());
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(server.answer);
  });

  it('sends the model, system prompt, max_tokens, temperature and stop sequences, with the API key and version headers', async () => {
    await run(generator({ system: 'Be brief.' }), { temperature: 0.3, maxTokens: 77, stopSequences: ['END'] });
    const request = server.requests[0]!;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(request.headers['anthropic-version']).toBeTruthy();
    expect(request.headers['x-api-key'] ?? request.headers.authorization).toMatch(new RegExp(`${server.apiKey}$`));
    expect(request.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 77,
      messages: [{ role: 'user', content: 'What is the answer?' }],
      system: 'Be brief.',
      temperature: 0.3,
      stop_sequences: ['END'],
      stream: true,
    });
  });

  it('defaults max_tokens to 300 and sends no system prompt, sampling or stop sequences that were not set', async () => {
    await run(generator());
    expect(server.requests[0]!.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'What is the answer?' }],
      stream: true,
    });
  });

  it('sends top_p instead of temperature when nucleusSampling is set (Claude refuses both)', async () => {
    await run(generator(), { temperature: 0, nucleusSampling: 0.9 });
    const body = server.requests[0]!.body;
    expect(body.top_p).toBe(0.9);
    expect(body.temperature).toBeUndefined();
  });

  it('sends no temperature or top_p to models that refuse them (after Opus 4.6) or that it does not know', async () => {
    await run(generator({ model: 'claude-opus-4-8' }), { temperature: 0, nucleusSampling: 0.9 });
    await run(generator({ model: 'claude-opus-4-8' }), { temperature: 0.2 });
    expect(server.requests.map((r) => [r.body.temperature, r.body.top_p])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    // Forced on, the API refuses the request; forced off, a model that takes them gets none.
    const forced = await settle(generator({ model: 'claude-opus-4-8', sampling: true }), { temperature: 0.2 });
    expect(forced.error).toMatchObject({ code: 'invalid_argument', status: 400 });
    expect(String(forced.error?.message)).toContain('`temperature` is deprecated for this model');
    await run(generator({ sampling: false }), { temperature: 0.2 });
    expect(server.requests.at(-1)!.body.temperature).toBeUndefined();
  });

  it('refuses sampling values outside [0, 1] before sending anything', async () => {
    await expect(run(generator(), { temperature: 1.5 })).rejects.toMatchObject({ code: 'invalid_argument', connector: 'anthropic' });
    await expect(run(generator(), { maxTokens: 0 })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(server.requests).toHaveLength(0);
  });

  it('a stop sequence ends the answer where the server stops', async () => {
    const pieces = await run(generator(), { stopSequences: ['forty'] });
    expect(pieces.join('')).toBe('The answer is ');
  });

  it('reports the service usage once, from message_start and message_delta', async () => {
    const usages: TokenUsage[] = [];
    const g = generator();
    const pieces = await run(g, { onUsage: (u) => usages.push(u) });
    expect(usages).toHaveLength(1);
    const usage = usages[0]!;
    expect(usage).toMatchObject({ serviceType: 'Anthropic', modelType: 'TextGeneration', modelName: 'anthropic/claude-haiku-4-5' });
    expect(Number.isNaN(Date.parse(usage.timestamp))).toBe(false);
    expect(usage.serviceTokensIn).toBeGreaterThan(0);
    expect(usage.serviceTokensOut).toBe(pieces.length); // the fake counts one token per piece, in message_delta
    expect(usage.tokenizerTokensOut).toBe(g.tokenizer.countTokens(server.answer));
  });

  it('switches the model of one call with modelName', async () => {
    const g = generator();
    expect(g.supportsModelOverride).toBe(true);
    let usage: TokenUsage | undefined;
    await run(g, { modelName: 'claude-opus-4-5', onUsage: (u) => (usage = u) });
    await run(g, { modelName: 'anthropic/claude-sonnet-4-6' });
    expect(server.requests.map((r) => r.body.model)).toEqual(['claude-opus-4-5', 'claude-sonnet-4-6']);
    expect(usage?.modelName).toBe('anthropic/claude-opus-4-5');
  });

  it('knows the context window of Claude models, and takes maxTokenTotal', () => {
    expect(generator().maxTokenTotal).toBe(200_000);
    expect(generator({ model: 'claude-3-5-haiku-20241022' }).maxTokenTotal).toBe(200_000);
    expect(generator({ maxTokenTotal: 1_000_000 }).maxTokenTotal).toBe(1_000_000);
    expect(new AnthropicTextGenerator({ apiKey: 'k' }).modelName).toBe('anthropic/claude-sonnet-4-6');
  });

  it('assumes 200k tokens for an unknown model and says so', () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    expect(generator({ model: 'claude-future-9', logger }).maxTokenTotal).toBe(200_000);
    expect(warnings.join('\n')).toMatch(/unknown model "claude-future-9".*maxTokenTotal/);
  });

  it('retries a 429 before the first token, waiting as retry-after-ms says', async () => {
    server.failures.push({ status: 429, headers: { 'retry-after-ms': '50' } });
    const pieces = await run(generator({ retry: { initialDelayMs: 1, maxDelayMs: 5000 } }));
    expect(pieces.join('')).toBe(server.answer);
    expect(server.requests).toHaveLength(2);
    // Without the header the backoff would wait at most 1 ms; the second request came after 50.
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(49);
  });

  it('honours a retry-after in seconds too', async () => {
    server.failures.push({ status: 429, headers: { 'retry-after': '0.06' } });
    await run(generator({ retry: { initialDelayMs: 1 } }));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(59);
  });

  it('retries 529 overloaded and 500 errors', async () => {
    server.failures.push({ status: 529 }, { status: 500 });
    expect((await run(generator())).join('')).toBe(server.answer);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries with a transient error', async () => {
    server.failures.push({ status: 529 }, { status: 529 }, { status: 529 });
    const { error } = await settle(generator({ retry: { maxRetries: 2, initialDelayMs: 1 } }));
    expect(error).toMatchObject({ code: 'transient', transient: true, status: 529, type: 'overloaded_error', connector: 'anthropic' });
    expect(server.requests).toHaveLength(3);
  });

  it('a 400 is invalid_argument and not retried', async () => {
    server.failures.push({ status: 400, message: 'messages: roles must alternate' });
    const { error } = await settle(generator());
    expect(error).toMatchObject({ code: 'invalid_argument', transient: false, status: 400 });
    expect(String(error?.message)).toContain('roles must alternate');
    expect(server.requests).toHaveLength(1);
  });

  it('a bad key is unauthorized and not retried', async () => {
    const { error } = await settle(generator({ apiKey: 'sk-ant-wrong' }));
    expect(error).toMatchObject({ code: 'unauthorized', transient: false, status: 401 });
    expect(server.requests).toHaveLength(1);
  });

  it('an unknown model is not_configured, naming the model', async () => {
    const { error } = await settle(generator({ model: 'claude-nope-1' }));
    expect(error).toMatchObject({ code: 'not_configured', transient: false, status: 404 });
    expect(String(error?.message)).toContain('"claude-nope-1"');
    expect(server.requests).toHaveLength(1);
  });

  it('a prompt over the context window is input_too_long; a request over the size limit is content_too_large', async () => {
    server.failures.push({ status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' });
    expect((await settle(generator())).error).toMatchObject({ code: 'input_too_long', transient: false });
    server.failures.push({ status: 413, message: 'Request exceeds the maximum allowed number of bytes.' });
    expect((await settle(generator())).error).toMatchObject({ code: 'content_too_large', transient: false });
    expect(server.requests).toHaveLength(2);
  });

  it('a stream broken after the first token fails once with a transient error, without repeating text', async () => {
    server.breakStreamAfter = 2;
    const { pieces, error } = await settle(generator());
    expect(error).toMatchObject({ code: 'transient', transient: true, connector: 'anthropic' });
    expect(pieces.join('')).toBe(server.answer.slice(0, 10));
    expect(server.requests).toHaveLength(1);
  });

  it('a stream broken before the first token is retried', async () => {
    server.failures.push({ dropAfter: 0 });
    const { pieces, error } = await settle(generator());
    expect(error).toBeUndefined();
    expect(pieces.join('')).toBe(server.answer);
    expect(server.requests).toHaveLength(2);
  });

  it('an error event mid-stream (overloaded_error) is a transient error, not retried after text', async () => {
    server.failures.push({ errorEventAfter: 3, type: 'overloaded_error', message: 'Overloaded' });
    const { pieces, error } = await settle(generator());
    expect(error).toMatchObject({ code: 'transient', transient: true, type: 'overloaded_error', connector: 'anthropic' });
    expect(pieces.join('')).toBe(server.answer.slice(0, 15));
    expect(server.requests).toHaveLength(1);
  });

  it('an error event before any text is retried', async () => {
    server.failures.push({ errorEventAfter: 0, type: 'overloaded_error' });
    expect((await run(generator())).join('')).toBe(server.answer);
    expect(server.requests).toHaveLength(2);
  });

  it('an abort mid-stream stops the stream with an aborted error', async () => {
    server.chunkDelayMs = 20;
    const controller = new AbortController();
    const pieces: string[] = [];
    const error = await (async () => {
      for await (const piece of generator().generate('q', { signal: controller.signal })) {
        pieces.push(piece);
        if (pieces.length === 2) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'aborted', connector: 'anthropic' });
    expect(pieces).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
    await expect.poll(() => server.streamsClosedEarly).toBe(1);
  });

  it('an abort during the retry wait stops it', async () => {
    server.failures.push({ status: 429, headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    const pending = settle(generator({ retry: { maxDelayMs: 60_000 } }), { signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort();
    expect((await pending).error).toMatchObject({ code: 'aborted' });
    expect(server.requests).toHaveLength(1);
  });

  it('a consumer that stops early closes the stream', async () => {
    server.chunkDelayMs = 20;
    for await (const _ of generator().generate('q', {})) break;
    await expect.poll(() => server.streamsClosedEarly).toBe(1);
  });
});

describe('the fake Messages API', () => {
  it('answers a non-streaming request with a JSON message, and errors as Anthropic does', async () => {
    const client = new Anthropic({ apiKey: server.apiKey, baseURL: url(), maxRetries: 0 });
    const message = await client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 3,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'max_tokens', usage: { output_tokens: 3 } });
    expect(message.content[0]).toEqual({ type: 'text', text: server.answer.slice(0, 15) });
    // Sampling parameters are no longer in the SDK's types; older models still take them.
    const both = {
      model: 'claude-haiku-4-5',
      max_tokens: 3,
      temperature: 0.5,
      top_p: 0.5,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    const refused = await client.messages.create(both).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, type: 'invalid_request_error' });
  });
});
