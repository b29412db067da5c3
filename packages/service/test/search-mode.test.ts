import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, importTexts, startTestService, useTestService, type TestService } from './helpers.js';

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

// Hashing embeddings count every word, stop words too: the filler wins "what is the zorblax" by
// vector, while the lexical index (stop words out, IDF) finds the one passage naming zorblax.
const TEXTS = {
  filler: 'The report of the team is on the table of the office, and the notes of the meeting are in the folder of the manager.',
  code: 'Error zorblax appears when the disk quota is exceeded; free some space and retry.',
  tea: 'Green tea is made from leaves that are not oxidised. It is popular in Japan and China.',
};
const QUESTION = 'what is the zorblax';

type Found = { results: Array<{ documentId: string }> };
const documentsOf = async (res: Response) => {
  expect(res.status).toBe(200);
  return ((await res.json()) as Found).results.map((r) => r.documentId);
};

describe('search modes over HTTP on the default store', () => {
  const service = useTestService({ overrides: { logLevel: 'warn' }, disposeTimeoutMs: 30_000 });
  beforeAll(() => importTexts(service().url, 'modes', TEXTS));

  it("mode 'lexical' finds the passage by a word the hashing embeddings do not rank first", async () => {
    const byVector = await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION, mode: 'vector' }));
    expect(byVector[0]).toBe('filler');
    // No mode: the default, hybrid, ranks the passage holding the word first.
    expect((await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION })))[0]).toBe('code');
    expect(await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION, mode: 'lexical' }))).toEqual(['code']);
    const hybrid = await post(service().url, '/search', {
      index: 'modes',
      query: QUESTION,
      mode: 'hybrid',
      fusion: { method: 'rrf', rrfK: 10 },
    });
    expect((await documentsOf(hybrid))[0]).toBe('code');
    const ask = await post(service().url, '/ask', { index: 'modes', question: QUESTION, mode: 'lexical' });
    expect(((await ask.json()) as { relevantSources: Array<{ documentId: string }> }).relevantSources.map((s) => s.documentId)).toEqual([
      'code',
    ]);
  });

  it("rerank: true without a configured reranker is a 400; 'mmr' and false need none", async () => {
    await expectProblem(await post(service().url, '/search', { index: 'modes', query: QUESTION, rerank: true }), 400, /reranker/);
    expect(await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION, rerank: 'mmr' }))).toHaveLength(3);
    expect(await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION, rerank: false }))).toHaveLength(3);
  });
});

describe('an absent minRelevance is not 0: the memory default applies', () => {
  const service = useTestService({
    overrides: { logLevel: 'warn' },
    configure: (b) => b.withSearchOptions({ defaultMinRelevance: 0.99 }),
    disposeTimeoutMs: 30_000,
  });
  beforeAll(() => importTexts(service().url, 'modes', TEXTS));

  it('filters with the default when the body has none (or null), and with the value given otherwise', async () => {
    expect(await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION }))).toEqual([]);
    expect(await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION, minRelevance: null }))).toEqual([]);
    expect(await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION, minRelevance: 0 }))).toHaveLength(3);
  });
});

describe('KM_SEARCH_MODE sets the mode of requests that give none', () => {
  const service = useTestService({ overrides: { logLevel: 'warn', search: { mode: 'lexical' } }, disposeTimeoutMs: 30_000 });
  beforeAll(() => importTexts(service().url, 'modes', TEXTS));

  it('searches by words by default, and by vector when the request says so', async () => {
    expect(await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION }))).toEqual(['code']);
    expect((await documentsOf(await post(service().url, '/search', { index: 'modes', query: QUESTION, mode: 'vector' })))[0]).toBe(
      'filler',
    );
  });
});

describe('KM_RERANKER=cohere with KM_RERANKER_URL: the service reranks through the API', () => {
  // A local server speaking Cohere's rerank: it ranks the tea passage first, whatever the query.
  const calls: Array<{ authorization: string | undefined; body: { documents: string[]; query: string; model: string } }> = [];
  const cohere: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { documents: string[]; query: string; model: string };
    calls.push({ authorization: req.headers.authorization, body });
    const results = body.documents.map((d, index) => ({ index, relevance_score: d.startsWith('Green tea') ? 0.99 : 0.01 * (index + 1) }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ results }));
  });
  let service: TestService;
  beforeAll(async () => {
    await new Promise<void>((r) => cohere.listen(0, '127.0.0.1', r));
    const rerankerUrl = `http://127.0.0.1:${(cohere.address() as AddressInfo).port}`;
    service = await startTestService({
      logLevel: 'warn',
      search: { reranker: 'cohere', rerankerApiKey: 'test-key', rerankerUrl, rerankerModel: 'rerank-test' },
    });
    await importTexts(service.url, 'modes', TEXTS);
  });
  afterAll(async () => {
    await service?.dispose();
    await new Promise((r) => cohere.close(r));
  });

  it('orders the results as the API ranks them, sending the query, the passages and the key; rerank: false skips it', async () => {
    const ranked = await documentsOf(await post(service.url, '/search', { index: 'modes', query: QUESTION, mode: 'vector' }));
    expect(ranked[0]).toBe('tea');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ authorization: 'Bearer test-key', body: { query: QUESTION, model: 'rerank-test' } });
    expect([...(calls[0]?.body.documents ?? [])].sort()).toEqual(Object.values(TEXTS).sort());
    expect(
      (await documentsOf(await post(service.url, '/search', { index: 'modes', query: QUESTION, mode: 'vector', rerank: false })))[0],
    ).toBe('filler');
    expect(calls).toHaveLength(1);
  });
});

describe('mode, fusion and rerank in search and ask bodies', () => {
  const service = useTestService({ overrides: { logLevel: 'warn' }, disposeTimeoutMs: 30_000 });

  it.each([
    [{ mode: 'fuzzy' }, /'mode' must be 'vector', 'lexical' or 'hybrid', got "fuzzy"/],
    [{ mode: 3 }, /'mode' must be/],
    [{ fusion: 'rrf' }, /'fusion' must be an object/],
    [{ fusion: [] }, /'fusion' must be an object/],
    [{ fusion: { method: 'max' } }, /'fusion.method' must be 'rrf' or 'weighted', got "max"/],
    [{ fusion: { vectorWeight: '0.5' } }, /'fusion.vectorWeight' must be a number/],
    [{ fusion: { rrfK: true } }, /'fusion.rrfK' must be a number/],
    [{ fusion: { k: 60 } }, /'fusion.k' is unknown/],
    [{ rerank: 'yes' }, /'rerank' must be true, false or 'mmr', got "yes"/],
    [{ rerank: 1 }, /'rerank' must be/],
    [{ minRelevance: '0.5' }, /'minRelevance' must be a number/],
  ])('answers 400 naming the field for %j on /search and /ask', async (fields, detail) => {
    const search = await expectProblem(await post(service().url, '/search', { query: 'moon', ...fields }), 400, detail);
    expect(search.code).toBe('invalid_argument');
    const ask = await expectProblem(await post(service().url, '/ask', { question: 'moon?', ...fields }), 400, detail);
    expect(ask.code).toBe('invalid_argument');
  });

  it('takes null for each field as absent, as KM clients send nulls', async () => {
    const res = await post(service().url, '/search', { query: 'moon', mode: null, fusion: null, rerank: null, minRelevance: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ query: 'moon', noResult: true });
  });

  it('documents the fields in the OpenAPI description of both bodies', async () => {
    const doc = (await (await fetch(`${service().url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[]; properties?: object }> }> };
    };
    for (const schema of ['SearchQuery', 'MemoryQuery']) {
      const properties = doc.components.schemas[schema]?.properties ?? {};
      expect(properties.mode?.enum).toEqual(['vector', 'lexical', 'hybrid']);
      expect(Object.keys(properties.fusion?.properties ?? {})).toEqual(['method', 'vectorWeight', 'rrfK']);
      expect(properties.rerank).toBeDefined();
    }
  });
});
