import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeAi, loadConfig } from '../src/index.js';
import { startTestService, uploadForm, waitForCompletion } from './helpers.js';

describe('choosing the model providers by name', () => {
  it('KM_TEXT_GENERATOR=anthropic reads the Anthropic settings, with the model default, and names them in the startup line', () => {
    const config = loadConfig({ env: { KM_TEXT_GENERATOR: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test' } });
    expect(config.textGenerator).toMatchObject({ type: 'anthropic', anthropicApiKey: 'sk-ant-test', anthropicModel: 'claude-sonnet-4-6' });
    expect(describeAi(config).answers).toBe('anthropic/claude-sonnet-4-6');
  });

  it('refuses anthropic without a key, naming both variables', () => {
    expect(() => loadConfig({ env: { KM_TEXT_GENERATOR: 'anthropic' } })).toThrow(/KM_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY/);
  });

  it('KM_TEXT_GENERATOR and KM_EMBEDDING_GENERATOR=ollama share the server URL, each with its own model', () => {
    const config = loadConfig({
      env: {
        KM_TEXT_GENERATOR: 'ollama',
        KM_EMBEDDING_GENERATOR: 'ollama',
        KM_OLLAMA_URL: 'http://10.0.0.5:11434',
        KM_OLLAMA_TEXT_MODEL: 'qwen2.5:7b',
      },
    });
    expect(config.textGenerator).toMatchObject({ type: 'ollama', ollamaUrl: 'http://10.0.0.5:11434', ollamaTextModel: 'qwen2.5:7b' });
    expect(config.embeddings).toMatchObject({
      provider: 'ollama',
      ollamaUrl: 'http://10.0.0.5:11434',
      ollamaEmbeddingModel: 'nomic-embed-text',
    });
    expect(describeAi(config)).toMatchObject({
      answers: 'ollama/qwen2.5:7b at http://10.0.0.5:11434',
      embeddings: 'ollama/nomic-embed-text at http://10.0.0.5:11434',
    });
  });

  it('keeps the older names: KM_EMBEDDINGS, and azureopenai for azure-openai', () => {
    expect(loadConfig({ env: { KM_EMBEDDINGS: 'hashing' } }).embeddings.provider).toBe('hashing');
    const azure = {
      KM_AZURE_OPENAI_ENDPOINT: 'https://r.openai.azure.com/',
      KM_AZURE_OPENAI_API_KEY: 'k',
      KM_AZURE_OPENAI_CHAT_DEPLOYMENT: 'chat',
      KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT: 'embed',
    };
    const config = loadConfig({ env: { ...azure, KM_TEXT_GENERATOR: 'AzureOpenAI', KM_EMBEDDING_GENERATOR: 'azureopenai' } });
    expect(config.textGenerator.type).toBe('azure-openai');
    expect(config.embeddings.provider).toBe('azure-openai');
  });

  it('with no text generator named, answers come from what is configured, else none', () => {
    expect(describeAi(loadConfig({ env: {} })).answers).toBe('extractive (no LLM configured)');
    expect(describeAi(loadConfig({ env: { KM_OPENAI_API_KEY: 'sk-x' } })).answers).toBe('openai/gpt-4o-mini');
    expect(describeAi(loadConfig({ env: { KM_OPENAI_API_KEY: 'sk-x', KM_TEXT_GENERATOR: 'none' } })).answers).toBe(
      'extractive (no LLM configured)',
    );
  });

  it.each([
    [{ KM_TEXT_GENERATOR: 'gemini' }, /KM_TEXT_GENERATOR.*"openai", "azure-openai", "none", "anthropic", "ollama".*"gemini"/],
    [{ KM_EMBEDDING_GENERATOR: 'cohere' }, /KM_EMBEDDING_GENERATOR.*"local".*"ollama".*"cohere"/],
    [{ KM_TEXT_GENERATOR: 'openai' }, /textGenerator.type is openai but neither.*KM_OPENAI_API_KEY/],
    [{ KM_TEXT_GENERATOR: 'azure-openai' }, /KM_AZURE_OPENAI_ENDPOINT/],
    [{ KM_TEXT_GENERATOR: 'ollama', KM_OLLAMA_URL: 'ftp://x' }, /ollamaUrl.*KM_OLLAMA_URL/],
    [{ KM_EMBEDDING_GENERATOR: 'ollama', KM_OLLAMA_URL: '0.0.0.0:11434' }, /ollamaUrl.*KM_OLLAMA_URL/],
  ])('refuses %j naming the setting', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });
});

interface Recorded {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A stand-in server: records each JSON request and answers it with `answer(path, body, res)`. */
async function startStandIn(
  answer: (path: string, body: Record<string, unknown>, res: import('node:http').ServerResponse) => void,
): Promise<{ url: string; requests: Recorded[]; server: Server }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      const path = new URL(req.url!, 'http://x').pathname;
      requests.push({ path, headers: req.headers, body });
      answer(path, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

/** Ollama's native API as its docs describe it: `/api/embed` (JSON) and `/api/chat` (NDJSON stream). */
const ollamaAnswer = (path: string, body: Record<string, unknown>, res: import('node:http').ServerResponse) => {
  if (path === '/api/embed') {
    const inputs = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ model: body.model, embeddings: inputs.map((t) => [1, t.length % 7, 0.5, 0.25]), prompt_eval_count: 3 }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const chunk = (content: string, done: boolean, extra: object = {}) =>
    `${JSON.stringify({ model: body.model, created_at: '2026-11-27T10:00:00Z', message: { role: 'assistant', content }, done, ...extra })}\n`;
  res.end(
    chunk('The Moon ', false) +
      chunk('orbits the Earth.', false) +
      chunk('', true, { done_reason: 'stop', prompt_eval_count: 40, eval_count: 6 }),
  );
};

/** Anthropic's Messages API, streamed as server-sent events as its docs describe them. */
const anthropicAnswer = (_path: string, body: Record<string, unknown>, res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  res.end(
    event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: 40, output_tokens: 1 },
      },
    }) +
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Claude says: the Moon orbits the Earth.' } }) +
      event('content_block_stop', { index: 0 }) +
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }) +
      event('message_stop', {}),
  );
};

async function uploadAndAsk(url: string): Promise<{ text: string }> {
  const res = await fetch(`${url}/upload`, {
    method: 'POST',
    body: uploadForm({ documentId: 'moon' }, [{ name: 'moon.txt', content: 'The Moon orbits the Earth.' }]),
  });
  expect(res.status).toBe(202);
  await waitForCompletion(url, 'moon');
  const asked = await fetch(`${url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'What orbits the Earth?', minRelevance: 0 }),
  });
  return (await asked.json()) as { text: string };
}

describe('a service on Ollama for embeddings and answers', () => {
  let ollama: Awaited<ReturnType<typeof startStandIn>>;
  let service: Awaited<ReturnType<typeof startTestService>> | undefined;
  beforeAll(async () => {
    ollama = await startStandIn(ollamaAnswer);
  });
  afterEach(async () => {
    await service?.dispose();
    service = undefined;
  });
  afterAll(async () => {
    await new Promise((resolve) => ollama.server.close(resolve));
  });

  it('embeds through /api/embed and answers through /api/chat with the configured models', async () => {
    const config = loadConfig({
      env: { KM_TEXT_GENERATOR: 'ollama', KM_EMBEDDING_GENERATOR: 'ollama', KM_OLLAMA_URL: ollama.url, KM_OLLAMA_TEXT_MODEL: 'qwen2.5:7b' },
    });
    service = await startTestService({ embeddings: config.embeddings, textGenerator: config.textGenerator });
    const answer = await uploadAndAsk(service.url);
    expect(answer.text).toContain('The Moon orbits the Earth.');
    const embed = ollama.requests.filter((r) => r.path === '/api/embed');
    const chat = ollama.requests.filter((r) => r.path === '/api/chat');
    expect(embed.length).toBeGreaterThan(0);
    expect(embed.every((r) => r.body.model === 'nomic-embed-text')).toBe(true);
    expect(chat).toHaveLength(1);
    expect(chat[0]!.body).toMatchObject({ model: 'qwen2.5:7b', stream: true });
  });
});

describe('a service answering with Anthropic', () => {
  let anthropic: Awaited<ReturnType<typeof startStandIn>>;
  let service: Awaited<ReturnType<typeof startTestService>>;
  beforeAll(async () => {
    anthropic = await startStandIn(anthropicAnswer);
    const config = loadConfig({
      env: {
        KM_TEXT_GENERATOR: 'anthropic',
        KM_ANTHROPIC_API_KEY: 'sk-ant-test',
        KM_ANTHROPIC_BASE_URL: anthropic.url,
        KM_EMBEDDINGS: 'hashing',
      },
    });
    service = await startTestService({ embeddings: config.embeddings, textGenerator: config.textGenerator });
  });
  afterAll(async () => {
    await service.dispose();
    await new Promise((resolve) => anthropic.server.close(resolve));
  });

  it('streams the answer from the Messages API with the configured model and key', async () => {
    const answer = await uploadAndAsk(service.url);
    expect(answer.text).toContain('Claude says: the Moon orbits the Earth.');
    expect(anthropic.requests).toHaveLength(1);
    const [request] = anthropic.requests;
    expect(request!.path).toBe('/v1/messages');
    expect(request!.body).toMatchObject({ model: 'claude-sonnet-4-6', stream: true });
    expect(String(request!.headers.authorization ?? request!.headers['x-api-key'])).toContain('sk-ant-test');
  });
});
