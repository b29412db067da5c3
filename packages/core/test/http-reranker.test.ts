import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTextReranker, type HttpTextRerankerOptions, type RerankProvider } from '../src/index.js';

// A local server speaking each provider's wire format: it checks the request's shape and km's
// mapping of the answer, not the providers themselves (the live tests at the end need a key).

interface Received {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  body: Record<string, unknown>;
}
type Handler = (received: Received, res: ServerResponse, call: number) => void;

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

async function serve(handler: Handler): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const r = { method: req.method, url: req.url, authorization: req.headers.authorization, body: text ? JSON.parse(text) : {} };
    received.push(r);
    handler(r, res, received.length);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const KEY = 'sk-secret-key-123';
const candidates = ['the sun is a star', 'the moon orbits the earth', 'paris is in france'].map((text, i) => ({
  text,
  relevance: 0.9 - i * 0.1,
}));
const reranker = (url: string, options: Partial<HttpTextRerankerOptions> = {}) =>
  new HttpTextReranker({ provider: 'cohere', apiKey: KEY, baseUrl: url, retryDelayMs: 1, ...options });

/** Each provider's answer list, as its API writes it. */
const answerOf = (provider: RerankProvider, items: { index: number; relevance_score: number }[]) =>
  provider === 'voyage' ? { object: 'list', data: items, model: 'rerank-2', usage: { total_tokens: 9 } } : { results: items, id: 'x' };

describe('HttpTextReranker wire formats', () => {
  it.each([
    ['cohere', '/v2/rerank', 'rerank-v3.5', { top_n: 2 }],
    ['jina', '/v1/rerank', 'jina-reranker-v2-base-multilingual', { top_n: 2, return_documents: false }],
    ['voyage', '/v1/rerank', 'rerank-2', { top_k: 2 }],
  ] as const)(
    '%s: POST %s with a bearer key, the documents and the top; the answer maps to indexes and scores',
    async (provider, path, model, extra) => {
      const { url, received } = await serve((_r, res) =>
        json(
          res,
          200,
          answerOf(provider, [
            { index: 1, relevance_score: 0.8 },
            { index: 2, relevance_score: 0.1 },
          ]),
        ),
      );
      const results = await reranker(url, { provider }).rerank('what orbits the earth?', candidates, { top: 2 });
      expect(results).toEqual([
        { index: 1, score: 0.8 },
        { index: 2, score: 0.1 },
      ]);
      expect(received).toEqual([
        {
          method: 'POST',
          url: path,
          authorization: `Bearer ${KEY}`,
          body: { model, query: 'what orbits the earth?', documents: candidates.map((c) => c.text), ...extra },
        },
      ]);
    },
  );

  it('names itself provider/model and sends the configured model', async () => {
    const { url, received } = await serve((_r, res) => json(res, 200, answerOf('voyage', [{ index: 0, relevance_score: 1 }])));
    const voyage = reranker(`${url}/`, { provider: 'voyage', model: 'rerank-2-lite' });
    expect(voyage.name).toBe('voyage/rerank-2-lite');
    await voyage.rerank('q', candidates.slice(0, 1));
    expect(received[0]).toMatchObject({ url: '/v1/rerank', body: { model: 'rerank-2-lite', top_k: 1 } });
  });

  it('sorts the answer best first and keeps at most top', async () => {
    const { url } = await serve((_r, res) =>
      json(
        res,
        200,
        answerOf('cohere', [
          { index: 2, relevance_score: 0.2 },
          { index: 0, relevance_score: 0.9 },
          { index: 1, relevance_score: 0.5 },
        ]),
      ),
    );
    expect(await reranker(url).rerank('q', candidates, { top: 2 })).toEqual([
      { index: 0, score: 0.9 },
      { index: 1, score: 0.5 },
    ]);
  });

  it('sends at most maxDocuments candidates (the first ones) and no call at all for none or top 0', async () => {
    const { url, received } = await serve((r, res) => json(res, 200, answerOf('cohere', [{ index: 1, relevance_score: 0.5 }])));
    await reranker(url, { maxDocuments: 2 }).rerank('q', candidates);
    expect(received[0]?.body).toMatchObject({ documents: candidates.slice(0, 2).map((c) => c.text), top_n: 2 });
    expect(await reranker(url).rerank('q', [])).toEqual([]);
    expect(await reranker(url).rerank('q', candidates, { top: 0 })).toEqual([]);
    expect(received).toHaveLength(1);
  });
});

describe('HttpTextReranker failures', () => {
  it('retries a 429 after its Retry-After, then succeeds', async () => {
    const { url, received } = await serve((_r, res, call) =>
      call === 1
        ? json(res, 429, { message: 'slow down' }, { 'retry-after': '0' })
        : json(res, 200, answerOf('cohere', [{ index: 0, relevance_score: 0.7 }])),
    );
    // Without the server's Retry-After (0 s) the wait would be about a minute and the test would time out.
    const results = await reranker(url, { retryDelayMs: 60_000, timeoutMs: 120_000 }).rerank('q', candidates);
    expect(results).toEqual([{ index: 0, score: 0.7 }]);
    expect(received).toHaveLength(2);
  });

  it('retries 5xx and gives up with a transient upstream_error naming the provider and the status', async () => {
    const { url, received } = await serve((_r, res) => json(res, 503, { message: 'overloaded' }));
    const error = await reranker(url, { provider: 'jina', maxRetries: 2 })
      .rerank('q', candidates)
      .catch((e) => e);
    expect(error).toMatchObject({
      code: 'upstream_error',
      transient: true,
      connector: 'jina',
      message: expect.stringMatching(/jina.*HTTP 503/),
    });
    expect(received).toHaveLength(3);
  });

  it('a 429 that outlasts the retries is rate_limited', async () => {
    const { url } = await serve((_r, res) => json(res, 429, {}, { 'retry-after': '0' }));
    await expect(reranker(url, { maxRetries: 1 }).rerank('q', candidates)).rejects.toMatchObject({ code: 'rate_limited', transient: true });
  });

  it('401 and 403 are unauthorized at once, and the key never shows in the message', async () => {
    for (const status of [401, 403]) {
      const { url, received } = await serve((_r, res) => json(res, status, { message: `invalid api token ${KEY}` }));
      const error = await reranker(url)
        .rerank('q', candidates)
        .catch((e) => e);
      expect(error).toMatchObject({ code: 'unauthorized', transient: false, message: expect.stringContaining(`HTTP ${status}`) });
      expect(error.message).not.toContain(KEY);
      expect(received).toHaveLength(1);
    }
  });

  it('another 4xx is a upstream_error without retries, quoting the provider', async () => {
    const { url, received } = await serve((_r, res) => json(res, 400, { message: 'model not found' }));
    await expect(reranker(url).rerank('q', candidates)).rejects.toMatchObject({
      code: 'upstream_error',
      transient: false,
      message: expect.stringMatching(/cohere rerank answered HTTP 400: .*model not found/),
    });
    expect(received).toHaveLength(1);
  });

  it.each([
    ['not JSON', 'oops'],
    ['no list', JSON.stringify({ answer: [] })],
    ['an index out of range', JSON.stringify({ results: [{ index: 3, relevance_score: 0.5 }] })],
    [
      'a repeated index',
      JSON.stringify({
        results: [
          { index: 0, relevance_score: 0.5 },
          { index: 0, relevance_score: 0.4 },
        ],
      }),
    ],
    ['a fractional index', JSON.stringify({ results: [{ index: 0.5, relevance_score: 0.5 }] })],
    ['a score that is not a number', JSON.stringify({ results: [{ index: 0, relevance_score: 'high' }] })],
    ['a missing score', JSON.stringify({ results: [{ index: 0 }] })],
  ])('a malformed answer (%s) is an upstream_error', async (_name, body) => {
    const { url, received } = await serve((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await expect(reranker(url).rerank('q', candidates)).rejects.toMatchObject({
      code: 'upstream_error',
      transient: false,
      message: expect.stringContaining('malformed'),
    });
    expect(received).toHaveLength(1);
  });

  it("Voyage's answer is read from data, not results", async () => {
    const { url } = await serve((_r, res) => json(res, 200, { results: [{ index: 0, relevance_score: 0.5 }] }));
    await expect(reranker(url, { provider: 'voyage' }).rerank('q', candidates)).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining("no 'data' list"),
    });
  });

  it("the caller's abort stops a call the server never answers: aborted", async () => {
    let arrived!: () => void;
    const request = new Promise<void>((r) => {
      arrived = r;
    });
    const { url } = await serve(() => arrived());
    const controller = new AbortController();
    const pending = reranker(url).rerank('q', candidates, { signal: controller.signal });
    await request;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted', connector: 'cohere' });
    await expect(reranker(url).rerank('q', candidates, { signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
  });

  it('no answer within timeoutMs is transient, naming the setting', async () => {
    const { url } = await serve(() => undefined);
    await expect(reranker(url, { timeoutMs: 50 }).rerank('q', candidates)).rejects.toMatchObject({
      code: 'transient',
      transient: true,
      message: expect.stringContaining('timeoutMs'),
    });
  });

  it('an unreachable server is retried, then transient', async () => {
    const { url } = await serve(() => undefined);
    const port = new URL(url).port;
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    servers = [];
    await expect(reranker(`http://127.0.0.1:${port}`, { maxRetries: 1 }).rerank('q', candidates)).rejects.toMatchObject({
      code: 'transient',
      transient: true,
    });
  });

  it('refuses bad options and a bad top with invalid_argument', () => {
    const make = (o: Partial<HttpTextRerankerOptions>) => () => new HttpTextReranker({ provider: 'cohere', apiKey: KEY, ...o });
    expect(make({ provider: 'openai' as RerankProvider })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(make({ apiKey: '' })).toThrow(/apiKey/);
    expect(make({ baseUrl: 'ftp://x' })).toThrow(/http or https/);
    expect(make({ baseUrl: 'not a url' })).toThrow(/not a URL/);
    expect(make({ maxDocuments: 0 })).toThrow(/maxDocuments/);
    expect(make({ timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(make({ maxRetries: 1.5 })).toThrow(/maxRetries/);
    return expect(make({})().rerank('q', candidates, { top: -1 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

// Live checks against the real APIs: each runs only when its key is set.
const LIVE: [RerankProvider, string][] = [
  ['cohere', 'COHERE_API_KEY'],
  ['jina', 'JINA_API_KEY'],
  ['voyage', 'VOYAGE_API_KEY'],
];
for (const [provider, variable] of LIVE) {
  const apiKey = process.env[variable];
  describe.skipIf(!apiKey)(`HttpTextReranker live ${provider} (set ${variable} to run)`, () => {
    it('ranks the passage that answers first', async () => {
      const live = new HttpTextReranker({ provider, apiKey: apiKey ?? '' });
      const results = await live.rerank('What orbits the Earth?', candidates, { top: 2 });
      expect(results[0]?.index).toBe(1);
      expect(results).toHaveLength(2);
    });
  });
}
