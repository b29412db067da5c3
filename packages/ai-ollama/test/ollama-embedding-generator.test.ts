import { beforeEach, describe, expect, it, vi } from 'vitest';
import { OllamaEmbeddingGenerator, type OllamaEmbeddingGeneratorOptions } from '../src/index.js';
import { closedPortUrl, useFakeOllamaServer } from './fake-ollama-server.js';

const { server, url } = useFakeOllamaServer();
beforeEach(() => server.reset());

function generator(options: Partial<OllamaEmbeddingGeneratorOptions> = {}) {
  return new OllamaEmbeddingGenerator({ host: url(), model: 'nomic-embed-text', retry: { initialDelayMs: 5 }, ...options });
}
const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a rejection')).catch((e) => e);
const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i} about topic ${i % 3}`);

describe('OllamaEmbeddingGenerator', () => {
  it('sends the inputs as one batch to /api/embed with keep_alive, truncate and num_ctx', async () => {
    await generator({ keepAlive: '30m' }).generateEmbeddings(['alpha', 'beta']);
    expect(server.requestsTo('embed')).toHaveLength(1);
    expect(server.requestsTo('embed')[0]!.body).toEqual({
      model: 'nomic-embed-text',
      input: ['alpha', 'beta'],
      truncate: false,
      keep_alive: '30m',
      options: { num_ctx: 8192 },
    });
  });

  it('splits a call into requests of batchSize inputs and keeps the order', async () => {
    const g = generator({ batchSize: 2 });
    expect(g.maxBatchSize).toBe(2);
    const inputs = texts(5);
    const vectors = await g.generateEmbeddings(inputs);
    expect(server.requestsTo('embed').map((r) => r.body.input)).toEqual([inputs.slice(0, 2), inputs.slice(2, 4), inputs.slice(4)]);
    const single = await generator().generateEmbeddings([inputs[3]!]);
    expect(Array.from(vectors[3]!)).toEqual(Array.from(single[0]!));
  });

  it('learns the vector size from the first response', async () => {
    const g = generator();
    expect(g.dimensions).toBeUndefined();
    const [v] = await g.generateEmbeddings(['alpha']);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v!.length).toBe(64);
    expect(g.dimensions).toBe(64);
    expect(g.modelName).toBe('ollama/nomic-embed-text');
  });

  it('refuses a later response of another size', async () => {
    const g = generator();
    await g.generateEmbeddings(['alpha']);
    server.dimensions = 32; // the model behind the name changed on the server
    try {
      await expect(g.generateEmbeddings(['beta'])).rejects.toMatchObject({ code: 'vector_size_mismatch', connector: 'ollama' });
    } finally {
      server.dimensions = 64;
    }
  });

  it('sends configured dimensions, names them in modelName and checks them', async () => {
    const g = generator({ dimensions: 16 });
    expect(g.dimensions).toBe(16);
    expect(g.modelName).toBe('ollama/nomic-embed-text@16');
    const [v] = await g.generateEmbeddings(['alpha']);
    expect(v!.length).toBe(16);
    expect(server.requestsTo('embed')[0]!.body.dimensions).toBe(16);
  });

  it('a server that ignores dimensions gets vector_size_mismatch, not vectors of two sizes', async () => {
    const g = generator({
      dimensions: 16,
      fetch: (input, init) => {
        const body = JSON.parse(String(init?.body));
        delete body.dimensions; // an older server drops the field
        return fetch(input, { ...init, body: JSON.stringify(body) });
      },
    });
    await expect(g.generateEmbeddings(['alpha'])).rejects.toMatchObject({ code: 'vector_size_mismatch' });
  });

  it('knows the context of common models and takes maxTokens', () => {
    expect(generator().maxTokens).toBe(8192);
    expect(generator({ model: 'mxbai-embed-large:335m' }).maxTokens).toBe(512);
    expect(generator({ model: 'my-own-embedder' }).maxTokens).toBe(2048);
    expect(generator({ maxTokens: 1000 }).maxTokens).toBe(1000);
  });

  it('an input over maxTokens fails with input_too_long before any request', async () => {
    const error = await failure(
      generator({ maxTokens: 10 }).generateEmbeddings(['short', 'this input has quite a few more words than ten tokens allow']),
    );
    expect(error).toMatchObject({ code: 'input_too_long', connector: 'ollama' });
    expect(error.message).toContain('input 1');
    expect(server.requestsTo('embed')).toHaveLength(0);
  });

  it('with truncate, an over-long input goes to the server, which cuts it', async () => {
    const long = 'this input has quite a few more words than ten tokens allow';
    const vectors = await generator({ maxTokens: 10, truncate: true }).generateEmbeddings([long]);
    expect(vectors).toHaveLength(1);
    expect(server.requestsTo('embed')[0]!.body).toMatchObject({ truncate: true, options: { num_ctx: 10 }, input: [long] });
  });

  it('the server refusing an input over its context is input_too_long (the token estimate fell short)', async () => {
    // The server counts more tokens than the estimate: the fake counts words against num_ctx.
    const g = generator({ maxTokens: 3, tokenizer: { countTokens: () => 1, getTokens: (t) => [t] } });
    const error = await failure(g.generateEmbeddings(['one two three four']));
    expect(error).toMatchObject({ code: 'input_too_long', transient: false, status: 400 });
    expect(server.requestsTo('embed')).toHaveLength(1);
  });

  it('refuses empty inputs and returns nothing for no texts', async () => {
    await expect(generator().generateEmbeddings(['ok', ''])).rejects.toMatchObject({ code: 'empty_content' });
    expect(await generator().generateEmbeddings([])).toEqual([]);
    expect(server.requestsTo('embed')).toHaveLength(0);
  });

  it('a model that is not pulled fails with the command to pull it, without retries', async () => {
    const error = await failure(generator({ model: 'bge-m3' }).generateEmbeddings(['alpha']));
    expect(error).toMatchObject({ code: 'not_configured', connector: 'ollama', transient: false, status: 404 });
    expect(error.message).toContain('model "bge-m3" is not on the Ollama server');
    expect(error.message).toContain('ollama pull bge-m3');
    expect(server.requestsTo('embed')).toHaveLength(1);
  });

  it('a chat model asked for embeddings is a fatal invalid_argument', async () => {
    await expect(generator({ model: 'llama3.2' }).generateEmbeddings(['alpha'])).rejects.toMatchObject({
      code: 'invalid_argument',
      status: 400,
    });
  });

  it('a host that is not Ollama gets a 404 that says so, and nothing is printed', async () => {
    const log = vi.spyOn(console, 'log');
    try {
      const error = await failure(generator({ host: `${url()}/not-ollama` }).generateEmbeddings(['alpha']));
      expect(error).toMatchObject({ code: 'not_configured', status: 404 });
      expect(error.message).toContain('404 page not found');
      expect(error.message).toContain('an Ollama server?');
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });

  it('retries a 503 then succeeds', async () => {
    server.failures.push({ status: 503, body: { error: 'loading model' } });
    expect(await generator().generateEmbeddings(['alpha'])).toHaveLength(1);
    expect(server.requestsTo('embed')).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    server.failures.push({ status: 400, body: { error: 'invalid input type' } });
    await expect(generator().generateEmbeddings(['alpha'])).rejects.toMatchObject({ code: 'invalid_argument', transient: false });
    expect(server.requestsTo('embed')).toHaveLength(1);
  });

  it('honours Retry-After on 429', async () => {
    server.failures.push({ status: 429, headers: { 'retry-after': '0' }, body: { error: 'too many requests' } });
    expect(await generator({ retry: { initialDelayMs: 60_000, maxRetries: 1 } }).generateEmbeddings(['alpha'])).toHaveLength(1);
    expect(server.requestsTo('embed')).toHaveLength(2);
  });

  it('an unreachable server is a transient error naming the host', async () => {
    const host = await closedPortUrl();
    const error = await failure(generator({ host, retry: { maxRetries: 1, initialDelayMs: 1 } }).generateEmbeddings(['alpha']));
    expect(error).toMatchObject({ code: 'transient', transient: true, connector: 'ollama' });
    expect(error.message).toContain(`cannot reach Ollama at ${host}`);
  });

  it('an abort stops a request in flight', async () => {
    server.latencyMs = 2_000;
    const controller = new AbortController();
    const pending = generator().generateEmbeddings(['alpha'], controller.signal);
    await expect.poll(() => server.requestsTo('embed').length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted', connector: 'ollama' });
  });

  it('an abort stops the backoff between retries', async () => {
    server.failures.push({ status: 503 });
    const controller = new AbortController();
    const pending = generator({ retry: { initialDelayMs: 60_000 } }).generateEmbeddings(['alpha'], controller.signal);
    await expect.poll(() => server.requestsTo('embed').length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    expect(server.requestsTo('embed')).toHaveLength(1);
  });

  it('refuses bad options', () => {
    expect(() => new OllamaEmbeddingGenerator({ model: ' ' })).toThrow(expect.objectContaining({ code: 'not_configured' }));
    expect(() => generator({ dimensions: -1 })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => generator({ batchSize: 0 })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => generator({ host: 'http://[bad' })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
