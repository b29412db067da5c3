import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/index.js';
import { startTestService, uploadForm, waitForCompletion } from './helpers.js';

const AZURE_ENV = {
  KM_AZURE_OPENAI_ENDPOINT: 'https://my-resource.openai.azure.com/',
  KM_AZURE_OPENAI_API_KEY: 'azure-key-123',
  KM_AZURE_OPENAI_CHAT_DEPLOYMENT: 'chat-prod',
  KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT: 'embed-prod',
  KM_AZURE_OPENAI_API_VERSION: '2024-10-21',
};

describe('Azure OpenAI settings', () => {
  it('are read from the environment; embeddings switch to Azure when an embedding deployment is set', () => {
    const config = loadConfig({ env: AZURE_ENV });
    expect(config.azureOpenai).toEqual({
      endpoint: 'https://my-resource.openai.azure.com/',
      apiKey: 'azure-key-123',
      auth: 'key',
      apiVersion: '2024-10-21',
      chatDeployment: 'chat-prod',
      embeddingDeployment: 'embed-prod',
    });
    expect(config.embeddings.provider).toBe('azure-openai');
    expect(loadConfig({ env: { ...AZURE_ENV, KM_AZURE_OPENAI_API_KEY: '', KM_AZURE_OPENAI_AUTH: 'Entra' } }).azureOpenai.auth).toBe(
      'entra',
    );
  });

  it.each([
    [{ KM_AZURE_OPENAI_ENDPOINT: 'not a url' }, /KM_AZURE_OPENAI_ENDPOINT/],
    [{ KM_AZURE_OPENAI_API_KEY: '' }, /KM_AZURE_OPENAI_API_KEY/],
    [{ KM_AZURE_OPENAI_AUTH: 'password' }, /KM_AZURE_OPENAI_AUTH/],
    [{ KM_AZURE_OPENAI_API_VERSION: 'latest' }, /KM_AZURE_OPENAI_API_VERSION/],
    [{ KM_AZURE_OPENAI_CHAT_DEPLOYMENT: '', KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT: '' }, /deployment/],
    [{ KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT: '', KM_EMBEDDINGS: 'azure-openai' }, /KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT/],
  ])('refuses %j naming the setting', (change, message) => {
    expect(() => loadConfig({ env: { ...AZURE_ENV, ...change } })).toThrow(message);
  });

  it('accepts an http:// endpoint (a local stand-in) and says so when the endpoint is wrong', () => {
    expect(loadConfig({ env: { ...AZURE_ENV, KM_AZURE_OPENAI_ENDPOINT: 'http://127.0.0.1:8080/' } }).azureOpenai.endpoint).toBe(
      'http://127.0.0.1:8080/',
    );
    expect(() => loadConfig({ env: { ...AZURE_ENV, KM_AZURE_OPENAI_ENDPOINT: 'ftp://x' } })).toThrow(/must be an http\(s\):\/\/ URL/);
  });

  it('refuses to start with Entra authentication when @azure/identity is not installed, naming the package', async () => {
    let failure: unknown;
    try {
      const service = await startTestService({
        embeddings: { provider: 'hashing' },
        azureOpenai: { endpoint: 'https://my-resource.openai.azure.com/', auth: 'entra', chatDeployment: 'chat-prod' },
      });
      await service.dispose();
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/@azure\/identity/);
    expect((failure as Error).message).toMatch(/KM_AZURE_OPENAI_AUTH=key/);
  });
});

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** An Azure OpenAI stand-in that records requests: JSON embeddings, streamed chat completions. */
async function startAzureStandIn(): Promise<{ url: string; requests: Recorded[]; server: Server }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url!.includes('/embeddings')) {
        const inputs = Array.isArray(body.input) ? body.input : [body.input];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            model: 'text-embedding-3-small',
            data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [1, 0.5, 0.25, index + 1] })),
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.end(chunk({ role: 'assistant', content: 'The Moon orbits the Earth.' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

describe('a service configured for Azure OpenAI', () => {
  let azure: Awaited<ReturnType<typeof startAzureStandIn>>;
  let service: Awaited<ReturnType<typeof startTestService>>;
  beforeAll(async () => {
    azure = await startAzureStandIn();
    const config = loadConfig({ env: { ...AZURE_ENV, KM_AZURE_OPENAI_ENDPOINT: azure.url } });
    service = await startTestService({ embeddings: config.embeddings, azureOpenai: config.azureOpenai });
  });
  afterAll(async () => {
    await service.dispose();
    await new Promise((resolve) => azure.server.close(resolve));
  });

  it('embeds and answers through the deployments, with the api-version and the api-key header', async () => {
    const res = await fetch(`${service.url}/upload`, {
      method: 'POST',
      body: uploadForm({ documentId: 'moon' }, [{ name: 'moon.txt', content: 'The Moon orbits the Earth.' }]),
    });
    expect(res.status).toBe(202);
    await waitForCompletion(service.url, 'moon');
    const answer = (await (
      await fetch(`${service.url}/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'What orbits the Earth?', minRelevance: 0 }),
      })
    ).json()) as { text: string };
    expect(answer.text).toContain('The Moon orbits the Earth.');

    const paths = azure.requests.map((r) => new URL(r.url, azure.url));
    expect(paths.some((u) => u.pathname === '/openai/deployments/embed-prod/embeddings')).toBe(true);
    expect(paths.some((u) => u.pathname === '/openai/deployments/chat-prod/chat/completions')).toBe(true);
    for (const [i, u] of paths.entries()) {
      expect(u.searchParams.get('api-version')).toBe('2024-10-21');
      expect(azure.requests[i]!.headers['api-key']).toBe('azure-key-123');
      expect(azure.requests[i]!.headers.authorization).toBeUndefined();
    }
  });
});
