import { isKmError } from '@km/core';
import { cosineSimilarity } from '@km/core/connector';
import { beforeEach, describe, expect, it } from 'vitest';
import { OpenAIEmbeddingGenerator, type OpenAIEmbeddingGeneratorOptions } from '../src/index.js';
import { useFakeOpenAIServer } from './fake-openai-server.js';

const { server, url, azure } = useFakeOpenAIServer();
beforeEach(() => {
  server.requests.length = 0;
  server.failures.length = 0;
  server.latencyMs = 0;
  server.shuffleEmbeddings = false;
  server.maxInFlight = 0;
});

const fast = { initialDelayMs: 5, maxDelayMs: 2000 };
function generator(options: Partial<OpenAIEmbeddingGeneratorOptions> = {}) {
  return new OpenAIEmbeddingGenerator({
    connection: { apiKey: 'sk-test', baseURL: url() },
    model: 'text-embedding-3-small',
    dimensions: 64,
    retry: fast,
    ...options,
  });
}
const texts = (n: number, words = 3) => Array.from({ length: n }, (_, i) => `${'text '.repeat(words - 1)}number ${i}`);

describe('OpenAIEmbeddingGenerator requests', () => {
  it('sends the model, dimensions, float encoding and the bearer key', async () => {
    const [v] = await generator().generateEmbeddings(['hello world']);
    expect(v).toHaveLength(64);
    const [req] = server.requestsTo('embeddings');
    expect(req!.path).toBe('/v1/embeddings');
    expect(req!.headers.authorization).toBe('Bearer sk-test');
    expect(req!.body).toMatchObject({ model: 'text-embedding-3-small', input: ['hello world'], dimensions: 64, encoding_format: 'float' });
  });

  it('names the model and dimensions in modelName, so vectors of another size are never reused', () => {
    expect(generator().modelName).toBe('openai/text-embedding-3-small@64');
    expect(generator({ dimensions: undefined }).dimensions).toBe(1536);
    expect(generator({ dimensions: undefined }).maxTokens).toBe(8191);
  });

  it('refuses dimensions for a model that does not take them', () => {
    expect(() => generator({ model: 'text-embedding-ada-002', dimensions: 256 })).toThrow(/does not take a dimensions/);
  });

  it('splits a call into requests by input count and keeps the order', async () => {
    const input = texts(250);
    const vectors = await generator({ maxInputsPerRequest: 100 }).generateEmbeddings(input);
    expect(server.requestsTo('embeddings').map((r) => (r.body.input as string[]).length)).toEqual([100, 100, 50]);
    const [expected] = await generator().generateEmbeddings([input[173]!]);
    expect(cosineSimilarity(vectors[173]!, expected!)).toBeGreaterThan(0.9999);
  });

  it('splits a call into requests by total tokens', async () => {
    const input = texts(10, 100); // ~101 tokens each
    await generator({ maxTokensPerRequest: 350 }).generateEmbeddings(input);
    const sizes = server.requestsTo('embeddings').map((r) => (r.body.input as string[]).length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
    expect(Math.max(...sizes)).toBe(3);
  });

  it('sends at most maxParallelRequests requests at a time', async () => {
    server.latencyMs = 50;
    await generator({ maxInputsPerRequest: 1, maxParallelRequests: 3 }).generateEmbeddings(texts(9));
    expect(server.requestsTo('embeddings')).toHaveLength(9);
    expect(server.maxInFlight).toBe(3);
  });

  it('sorts response items by index', async () => {
    server.shuffleEmbeddings = true;
    const input = ['alpha beta gamma', 'completely different words here'];
    const vectors = await generator().generateEmbeddings(input);
    server.shuffleEmbeddings = false;
    const alone = await generator().generateEmbeddings([input[0]!]);
    expect(cosineSimilarity(vectors[0]!, alone[0]!)).toBeGreaterThan(0.9999);
  });

  it('an input over the model limit fails before any request, naming input and limit', async () => {
    const long = 'word '.repeat(9000);
    const error = await generator()
      .generateEmbeddings(['short', long])
      .catch((e) => e);
    expect(isKmError(error, 'input_too_long')).toBe(true);
    expect(error.message).toMatch(/input 1 has \d+ tokens; .* at most 8191/);
    expect(server.requests).toHaveLength(0);
  });

  it('truncates an input over the limit when configured', async () => {
    const g = generator({ truncate: true, maxTokens: 50 });
    await g.generateEmbeddings(['word '.repeat(500)]);
    const sent = server.requestsTo('embeddings')[0]!.body.input![0] as string;
    expect(g.tokenizer.countTokens(sent)).toBe(50);
  });

  it('an empty input is refused with a clear error', async () => {
    await expect(generator().generateEmbeddings(['ok', ''])).rejects.toMatchObject({ code: 'empty_content' });
  });
});

describe('OpenAIEmbeddingGenerator retries', () => {
  it('retries a 429 after the Retry-After the server gave', async () => {
    server.failures.push({ status: 429, headers: { 'retry-after': '1' } });
    const started = Date.now();
    await generator().generateEmbeddings(['hello']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requestsTo('embeddings')).toHaveLength(2);
  });

  it('honours retry-after-ms and retries 5xx', async () => {
    server.failures.push({ status: 503, headers: { 'retry-after-ms': '300' } }, { status: 500 });
    const started = Date.now();
    await generator().generateEmbeddings(['hello']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(server.requestsTo('embeddings')).toHaveLength(3);
  });

  it('gives up after maxRetries with a transient, typed error', async () => {
    for (let i = 0; i < 3; i++) server.failures.push({ status: 429 });
    const error = await generator({ retry: { ...fast, maxRetries: 2 } })
      .generateEmbeddings(['hello'])
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'rate_limited', transient: true, connector: 'openai', status: 429 });
    expect(server.requestsTo('embeddings')).toHaveLength(3);
  });

  it('does not retry a bad request or a bad key, and marks them fatal', async () => {
    server.failures.push({ status: 400, body: { error: { message: 'bad input', type: 'invalid_request_error', code: null } } });
    await expect(generator().generateEmbeddings(['x'])).rejects.toMatchObject({ code: 'invalid_argument', transient: false });
    server.failures.push({ status: 401, body: { error: { message: 'Incorrect API key', type: 'invalid_request_error' } } });
    await expect(generator().generateEmbeddings(['x'])).rejects.toMatchObject({ code: 'unauthorized', transient: false });
    server.failures.push({
      status: 400,
      body: { error: { message: 'too long', type: 'invalid_request_error', code: 'context_length_exceeded' } },
    });
    await expect(generator().generateEmbeddings(['x'])).rejects.toMatchObject({ code: 'input_too_long', transient: false });
    expect(server.requestsTo('embeddings')).toHaveLength(3);
  });

  it('an unknown model or deployment (404) is a configuration error', async () => {
    server.failures.push({ status: 404, body: { error: { message: 'model not found', type: 'invalid_request_error' } } });
    const error = await generator()
      .generateEmbeddings(['x'])
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'not_configured', transient: false });
    expect(error.message).toMatch(/model or deployment/);
  });

  it('a connection refused is transient', async () => {
    const g = new OpenAIEmbeddingGenerator({
      connection: { provider: 'compatible', baseURL: 'http://127.0.0.1:9/v1' },
      model: 'nomic-embed-text',
      retry: { maxRetries: 1, initialDelayMs: 5 },
    });
    await expect(g.generateEmbeddings(['x'])).rejects.toMatchObject({ code: 'transient', transient: true });
  });

  it('an abort during the backoff stops at once', async () => {
    server.failures.push({ status: 429, headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(generator({ retry: { maxDelayMs: 60_000 } }).generateEmbeddings(['x'], controller.signal)).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('OpenAIEmbeddingGenerator providers', () => {
  it('Azure OpenAI: deployment path, api-version and api-key header', async () => {
    const g = new OpenAIEmbeddingGenerator({
      connection: azure({ deployment: 'emb-small', apiKey: 'azure-key', apiVersion: '2024-10-21' }),
      model: 'text-embedding-3-small',
      dimensions: 32,
    });
    expect(g.modelName).toBe('azure-openai/text-embedding-3-small@32');
    await g.generateEmbeddings(['hello']);
    const [req] = server.requestsTo('embeddings');
    expect(req!.path).toBe('/openai/deployments/emb-small/embeddings');
    expect(req!.query.get('api-version')).toBe('2024-10-21');
    expect(req!.headers['api-key']).toBe('azure-key');
  });

  it('Azure OpenAI with a token provider sends a bearer token', async () => {
    const g = new OpenAIEmbeddingGenerator({ connection: azure({ deployment: 'emb', azureADTokenProvider: async () => 'entra-token' }) });
    await g.generateEmbeddings(['hello']);
    expect(server.requestsTo('embeddings')[0]!.headers.authorization).toBe('Bearer entra-token');
  });

  it('an OpenAI-compatible server needs only a base URL', async () => {
    const g = new OpenAIEmbeddingGenerator({
      connection: { provider: 'compatible', baseURL: url() },
      model: 'nomic-embed-text',
      maxTokens: 2048,
    });
    expect(g.modelName).toBe('openai-compatible/nomic-embed-text');
    const [v] = await g.generateEmbeddings(['hello']);
    expect(v).toHaveLength(64);
    expect(server.requestsTo('embeddings')[0]!.body.dimensions).toBeUndefined();
  });

  it('refuses incomplete configurations', () => {
    expect(() => new OpenAIEmbeddingGenerator({ connection: { apiKey: '' }, model: 'x' })).toThrow(/apiKey/);
    expect(() => new OpenAIEmbeddingGenerator({ connection: { provider: 'azure', endpoint: 'https://x', deployment: 'd' } })).toThrow(
      /apiKey or an azureADTokenProvider/,
    );
    expect(() => new OpenAIEmbeddingGenerator({ connection: { apiKey: 'k' } })).toThrow(/model name is required/);
  });
});
