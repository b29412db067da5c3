import type { TokenUsage } from '@km/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { OpenAITextGenerator, type OpenAITextGeneratorOptions } from '../src/index.js';
import { useFakeOpenAIServer } from './fake-openai-server.js';

const { server, url, azure } = useFakeOpenAIServer();
beforeEach(() => {
  server.requests.length = 0;
  server.failures.length = 0;
  server.breakStreamAfter = undefined;
  server.answer = 'The answer is forty-two, as the documents say.';
});

function generator(options: Partial<OpenAITextGeneratorOptions> = {}) {
  return new OpenAITextGenerator({
    connection: { apiKey: 'sk-test', baseURL: url() },
    model: 'gpt-4o-mini',
    retry: { initialDelayMs: 5 },
    ...options,
  });
}
async function run(g: OpenAITextGenerator, options: Parameters<OpenAITextGenerator['generate']>[1] = {}) {
  const pieces: string[] = [];
  for await (const piece of g.generate('What is the answer?', options)) pieces.push(piece);
  return pieces;
}

describe('OpenAITextGenerator', () => {
  it('streams the answer in pieces', async () => {
    const pieces = await run(generator());
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(server.answer);
  });

  it('sends sampling settings, max tokens, stop sequences and asks for usage', async () => {
    await run(generator({ systemPrompt: 'Be brief.' }), { temperature: 0.3, nucleusSampling: 0.9, maxTokens: 77, stopSequences: ['END'] });
    const body = server.requestsTo('chat/completions')[0]!.body;
    expect(body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 77,
      stop: ['END'],
    });
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is the answer?' },
    ]);
  });

  it('reasoning models get max_completion_tokens and no sampling parameters', async () => {
    await run(generator({ model: 'o3-mini' }), { temperature: 0.5, maxTokens: 50 });
    const body = server.requestsTo('chat/completions')[0]!.body;
    expect(body.max_completion_tokens).toBe(50);
    expect(body.max_tokens).toBeUndefined();
    expect(body.temperature).toBeUndefined();
  });

  it('reports the service usage and its own token counts', async () => {
    let usage: TokenUsage | undefined;
    const g = generator();
    await run(g, { onUsage: (u) => (usage = u) });
    expect(usage).toMatchObject({ serviceType: 'OpenAI', modelType: 'TextGeneration', modelName: 'openai/gpt-4o-mini' });
    expect(usage!.serviceTokensIn).toBeGreaterThan(0);
    expect(usage!.serviceTokensOut).toBeGreaterThan(0);
    expect(usage!.tokenizerTokensOut).toBe(g.tokenizer.countTokens(server.answer));
  });

  it('knows context windows and tokenizers of known models', () => {
    expect(generator().maxTokenTotal).toBe(128_000);
    expect(generator({ model: 'gpt-4.1' }).maxTokenTotal).toBe(1_047_576);
    expect(generator({ model: 'llama3.1', connection: { provider: 'compatible', baseURL: url() } }).maxTokenTotal).toBe(8192);
    expect(
      generator({ model: 'llama3.1', connection: { provider: 'compatible', baseURL: url() }, maxTokenTotal: 131072 }).maxTokenTotal,
    ).toBe(131072);
  });

  it('retries a 429 before the first token', async () => {
    server.failures.push({ status: 429, headers: { 'retry-after-ms': '50' } });
    expect((await run(generator())).join('')).toBe(server.answer);
    expect(server.requestsTo('chat/completions')).toHaveLength(2);
  });

  it('a stream broken midway fails once with a typed error, without repeating text', async () => {
    server.breakStreamAfter = 2;
    const pieces: string[] = [];
    const error = await (async () => {
      for await (const piece of generator().generate('q', {})) pieces.push(piece);
    })().catch((e) => e);
    expect(error).toMatchObject({ name: expect.stringMatching(/KmError|OpenAIRequestError/), connector: 'openai' });
    expect(pieces.join('')).toBe(server.answer.slice(0, 10));
    expect(server.requestsTo('chat/completions')).toHaveLength(1);
  });

  it('a bad key is fatal and not retried', async () => {
    server.failures.push({ status: 401, body: { error: { message: 'Incorrect API key' } } });
    await expect(run(generator())).rejects.toMatchObject({ code: 'unauthorized', transient: false });
    expect(server.requestsTo('chat/completions')).toHaveLength(1);
  });

  it('Azure OpenAI uses the deployment path', async () => {
    const g = new OpenAITextGenerator({
      connection: azure({ deployment: 'chat-deploy', apiKey: 'k' }),
      model: 'gpt-4o',
    });
    let usage: TokenUsage | undefined;
    await run(g, { onUsage: (u) => (usage = u) });
    expect(server.requestsTo('chat/completions')[0]!.path).toBe('/openai/deployments/chat-deploy/chat/completions');
    expect(usage?.serviceType).toBe('Azure OpenAI');
  });
});
