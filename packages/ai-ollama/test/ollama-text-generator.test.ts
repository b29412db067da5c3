import type { TokenUsage } from '@km/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { OllamaTextGenerator, type OllamaTextGeneratorOptions } from '../src/index.js';
import { closedPortUrl, useFakeOllamaServer } from './fake-ollama-server.js';

const { server, url } = useFakeOllamaServer();
beforeEach(() => {
  server.reset();
  server.answer = 'The answer is forty-two, as the documents say.';
});

function generator(options: Partial<OllamaTextGeneratorOptions> = {}) {
  return new OllamaTextGenerator({ host: url(), model: 'llama3.2', retry: { initialDelayMs: 5 }, ...options });
}
async function run(g: OllamaTextGenerator, options: Parameters<OllamaTextGenerator['generate']>[1] = {}, pieces: string[] = []) {
  for await (const piece of g.generate('What is the answer?', options)) pieces.push(piece);
  return pieces;
}
const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a rejection')).catch((e) => e);

describe('OllamaTextGenerator', () => {
  it('streams the answer in pieces', async () => {
    const pieces = await run(generator());
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(server.answer);
  });

  it('sends the prompt, keep_alive, num_ctx and the sampling settings', async () => {
    await run(generator({ contextLength: 8192, keepAlive: '10m' }), {
      temperature: 0.3,
      nucleusSampling: 0.9,
      maxTokens: 77,
      stopSequences: ['END'],
    });
    const [request] = server.requestsTo('chat');
    expect(request!.body).toEqual({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'What is the answer?' }],
      stream: true,
      keep_alive: '10m',
      options: { num_ctx: 8192, num_predict: 77, temperature: 0.3, top_p: 0.9, stop: ['END'] },
    });
  });

  it('defaults: 4096 context, 300 tokens, temperature 0, no top_p, stop or keep_alive', async () => {
    const g = generator();
    expect(g.maxTokenTotal).toBe(4096);
    await run(g);
    expect(server.requestsTo('chat')[0]!.body).toMatchObject({ options: { num_ctx: 4096, num_predict: 300, temperature: 0 } });
    expect(server.requestsTo('chat')[0]!.body.keep_alive).toBeUndefined();
    expect(server.requestsTo('chat')[0]!.body.options).not.toHaveProperty('top_p');
    expect(server.requestsTo('chat')[0]!.body.options).not.toHaveProperty('stop');
  });

  it('a keep-alive of digits is sent as seconds (a number)', async () => {
    await run(generator({ keepAlive: '-1' }));
    expect(server.requestsTo('chat')[0]!.body.keep_alive).toBe(-1);
  });

  it('the server honours num_predict and stop (the fake follows the API)', async () => {
    expect((await run(generator(), { maxTokens: 2 })).join('')).toBe('The answer ');
    expect((await run(generator(), { stopSequences: ['forty'] })).join('')).toBe('The answer is ');
  });

  it('reports the counts of the final chunk and its own token estimates', async () => {
    let usage: TokenUsage | undefined;
    const g = generator();
    await run(g, { onUsage: (u) => (usage = u) });
    expect(usage).toMatchObject({
      serviceType: 'Ollama',
      modelType: 'TextGeneration',
      modelName: 'ollama/llama3.2',
      serviceTokensIn: 4, // the fake counts the words of the prompt
      serviceTokensOut: 8, // and one token per chunk
      tokenizerTokensOut: g.tokenizer.countTokens(server.answer),
    });
  });

  it('a call may name another model of the same server', async () => {
    const g = generator();
    expect(g.supportsModelOverride).toBe(true);
    let usage: TokenUsage | undefined;
    await run(g, { modelName: 'qwen2.5:7b', onUsage: (u) => (usage = u) });
    expect(server.requestsTo('chat')[0]!.body.model).toBe('qwen2.5:7b');
    expect(usage?.modelName).toBe('ollama/qwen2.5:7b');
  });

  it('a model that is not pulled fails with the command to pull it, without retries', async () => {
    const error = await failure(run(generator({ model: 'mistral' })));
    expect(error).toMatchObject({ code: 'not_configured', connector: 'ollama', transient: false, status: 404 });
    expect(error.message).toContain('ollama pull mistral');
    expect(error.message).toContain(url());
    expect(server.requestsTo('chat')).toHaveLength(1);
  });

  it('an embedding model asked to chat is a fatal invalid_argument', async () => {
    const error = await failure(run(generator({ model: 'nomic-embed-text' })));
    expect(error).toMatchObject({ code: 'invalid_argument', transient: false, status: 400 });
    expect(error.message).toContain('does not support chat');
    expect(server.requestsTo('chat')).toHaveLength(1);
  });

  it('retries 503 and 429 before the first token, then streams', async () => {
    server.failures.push({ status: 503, body: { error: 'server busy' } }, { status: 429, headers: { 'retry-after': '0' } });
    expect((await run(generator())).join('')).toBe(server.answer);
    expect(server.requestsTo('chat')).toHaveLength(3);
  });

  it('gives up after maxRetries with a transient error', async () => {
    for (let i = 0; i < 3; i++) server.failures.push({ status: 500, body: { error: 'boom' } });
    const error = await failure(run(generator({ retry: { maxRetries: 2, initialDelayMs: 1 } })));
    expect(error).toMatchObject({ code: 'transient', transient: true, status: 500 });
    expect(server.requestsTo('chat')).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    server.failures.push({ status: 400, body: { error: 'invalid options' } });
    const error = await failure(run(generator()));
    expect(error).toMatchObject({ code: 'invalid_argument', transient: false });
    expect(server.requestsTo('chat')).toHaveLength(1);
  });

  it('a stream that breaks before the first token is retried', async () => {
    server.breakStreamAfter = 0;
    server.breakStreams = 1;
    expect((await run(generator())).join('')).toBe(server.answer);
    expect(server.requestsTo('chat')).toHaveLength(2);
  });

  it('a stream broken mid-answer fails once with a transient error, without repeating text', async () => {
    server.breakStreamAfter = 3;
    const pieces: string[] = [];
    const error = await failure(run(generator(), {}, pieces));
    expect(error).toMatchObject({ name: 'OllamaRequestError', code: 'transient', transient: true, connector: 'ollama' });
    expect(error.message).toContain('broke after');
    expect(pieces.join('')).toBe('The answer is ');
    expect(server.requestsTo('chat')).toHaveLength(1);
  });

  it('an error the server writes into the stream fails as upstream_error', async () => {
    // Ollama reports a failure during generation as a line {"error": "..."} in the stream.
    const g = generator({
      fetch: async (input, init) => {
        const body = `${JSON.stringify({ model: 'llama3.2', created_at: '', message: { role: 'assistant', content: 'Hi' }, done: false })}\n{"error":"model runner has unexpectedly stopped"}\n`;
        await fetch(input, init); // recorded by the fake
        return new Response(body, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
      },
    });
    const pieces: string[] = [];
    const error = await failure(run(g, {}, pieces));
    expect(error).toMatchObject({ code: 'upstream_error', connector: 'ollama', transient: false });
    expect(error.message).toContain('model runner has unexpectedly stopped');
    expect(pieces).toEqual(['Hi']);
  });

  it('an abort stops the stream with aborted and closes the connection', async () => {
    server.latencyMs = 20;
    const controller = new AbortController();
    const pieces: string[] = [];
    const error = await failure(
      (async () => {
        for await (const piece of generator().generate('q', { signal: controller.signal })) {
          pieces.push(piece);
          if (pieces.length === 2) controller.abort();
        }
      })(),
    );
    expect(error).toMatchObject({ code: 'aborted', connector: 'ollama' });
    expect(pieces).toHaveLength(2);
    await expect.poll(() => server.closedEarly).toBe(1);
  });

  it('a consumer that stops reading closes the connection', async () => {
    server.latencyMs = 20;
    for await (const _ of generator().generate('q', {})) break;
    await expect.poll(() => server.closedEarly).toBe(1);
  });

  it('an unreachable server is a transient error naming the host, after the retries', async () => {
    const host = await closedPortUrl();
    const error = await failure(run(generator({ host, retry: { maxRetries: 1, initialDelayMs: 1 } })));
    expect(error).toMatchObject({ code: 'transient', transient: true, connector: 'ollama' });
    expect(error.message).toContain(`cannot reach Ollama at ${host}`);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('refuses a model-less configuration and a bad context length', () => {
    expect(() => new OllamaTextGenerator({ model: '' })).toThrow(expect.objectContaining({ code: 'not_configured' }));
    expect(() => generator({ contextLength: 0 })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('sends the configured headers', async () => {
    await run(generator({ headers: { authorization: 'Bearer proxy-token' } }));
    expect(server.requestsTo('chat')[0]!.headers.authorization).toBe('Bearer proxy-token');
  });
});
