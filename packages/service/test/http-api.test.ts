import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { expectProblem, uploadForm, useTestService, waitForCompletion } from './helpers.js';

const MOON = "The Moon is Earth's only natural satellite. It orbits at an average distance of 384,400 km.";
const MARS = 'Mars is the fourth planet from the Sun. Its red colour comes from iron oxide on its surface.';
const TEA = 'Green tea is made from leaves that are not oxidised. It is popular in Japan and China.';

describe('HTTP API end to end (real server, file queue)', () => {
  const service = useTestService();

  it('uploads several files with tags, reports progress, then searches, asks, streams, downloads and deletes', async () => {
    const { url } = service();
    const form = uploadForm(
      {
        index: 'astro',
        documentId: 'planets',
        tags: ['topic:space', 'user:alice', 'draft:'],
        steps: 'extract,partition gen_embeddings;save_records',
      },
      [
        { name: 'moon.txt', content: MOON, type: 'text/plain' },
        { name: 'mars.md', content: `# Mars\n\n${MARS}` },
      ],
    );
    const upload = await fetch(`${url}/upload`, { method: 'POST', body: form });
    expect(upload.status).toBe(202);
    expect(upload.headers.get('location')).toBe('/upload-status?index=astro&documentId=planets');
    expect(await upload.json()).toEqual({
      index: 'astro',
      documentId: 'planets',
      message: 'Document upload completed, ingestion pipeline started',
    });

    const other = await fetch(`${url}/upload`, {
      method: 'POST',
      body: uploadForm({ index: 'astro', documentId: 'tea', tags: 'topic:food' }, [{ name: 'tea.txt', content: TEA }]),
    });
    expect(other.status).toBe(202);

    const status = await waitForCompletion(url, 'planets', 'astro');
    expect(status).toMatchObject({
      index: 'astro',
      document_id: 'planets',
      tags: { topic: ['space'], user: ['alice'], draft: [null] },
      steps: ['extract', 'partition', 'gen_embeddings', 'save_records'],
      remaining_steps: [],
      failed: false,
      empty: false,
    });
    await waitForCompletion(url, 'tea', 'astro');

    // Search with a filter (KM's wire form) and with km's NOT filter.
    const search = async (body: unknown) => {
      const res = await fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as {
        noResult: boolean;
        results: Array<{ documentId: string; sourceName: string; partitions: Array<{ relevance: number }> }>;
      };
    };
    const bySpace = await search({ index: 'astro', query: 'red planet iron oxide', filters: [{ topic: ['space'] }], limit: 5 });
    expect(bySpace.noResult).toBe(false);
    expect(bySpace.results[0]).toMatchObject({ documentId: 'planets', sourceName: 'mars.md' });
    expect(bySpace.results.every((r) => r.documentId === 'planets')).toBe(true);
    const notSpace = await search({ index: 'astro', query: 'red planet iron oxide', filters: [{ '!topic': ['space'] }] });
    expect(notSpace.results.map((r) => r.documentId)).toEqual(['tea']);
    const unknownIndex = await search({ index: 'nothing-here', query: 'moon' });
    expect(unknownIndex).toEqual({ query: 'moon', noResult: true, results: [] });

    // Ask: citations point at the right file.
    const ask = await fetch(`${url}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index: 'astro', question: 'At what average distance does the Moon orbit?', filters: [{}] }),
    });
    expect(ask.status).toBe(200);
    const answer = (await ask.json()) as { noResult: boolean; text: string; relevantSources: Array<{ sourceName: string; link: string }> };
    expect(answer.noResult).toBe(false);
    expect(answer.text).toContain('384,400 km');
    expect(answer.relevantSources.map((s) => s.sourceName)).toContain('moon.txt');

    // Streaming ask: SSE lines, KM's stream states, [DONE] last.
    const streamed = await fetch(`${url}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index: 'astro', question: 'At what average distance does the Moon orbit?', stream: true }),
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await streamed.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => {
      expect(e.startsWith('data: ')).toBe(true);
      return JSON.parse(e.slice(6)) as { streamState: string; text: string; relevantSources: unknown[] };
    });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0]!.streamState).toBe('reset');
    expect(chunks.at(-1)!.streamState).toBe('last');
    expect(chunks.map((c) => c.text).join('')).toContain('384,400 km');

    // Download returns the stored bytes.
    const download = await fetch(`${url}/download?index=astro&documentId=planets&filename=moon.txt`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(download.headers.get('content-disposition')).toContain('filename="moon.txt"');
    expect(await download.text()).toBe(MOON);

    // Indexes.
    const indexes = await (await fetch(`${url}/indexes`)).json();
    expect(indexes).toEqual({ results: [{ name: 'astro' }] });

    // Delete a document: 202, then it is gone from status and search.
    const del = await fetch(`${url}/documents?index=astro&documentId=planets`, { method: 'DELETE' });
    expect(del.status).toBe(202);
    expect(await del.json()).toMatchObject({ index: 'astro', documentId: 'planets' });
    await vi.waitFor(async () => expect((await fetch(`${url}/upload-status?index=astro&documentId=planets`)).status).toBe(404), {
      timeout: 10_000,
    });
    const afterDelete = await search({ index: 'astro', query: 'moon mars tea', limit: 10 });
    expect(afterDelete.results.map((r) => r.documentId)).toEqual(['tea']);

    // Delete the index.
    const delIndex = await fetch(`${url}/indexes?index=astro`, { method: 'DELETE' });
    expect(delIndex.status).toBe(202);
    await vi.waitFor(async () => expect(await (await fetch(`${url}/indexes`)).json()).toEqual({ results: [] }), { timeout: 10_000 });
  });

  it('accepts KM-style uploads: no index, no document id, quoted curl values', async () => {
    const form = uploadForm({}, [{ name: 'note.txt', content: 'A note without an id.' }]);
    const res = await fetch(`${service().url}/upload`, { method: 'POST', body: form });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { index: string; documentId: string };
    expect(body.index).toBe('default');
    expect(body.documentId).toMatch(/^\d{8}\.\d{6}\.[0-9a-f]{32}$/);
    await waitForCompletion(service().url, body.documentId);
  });

  it('serves its OpenAPI document, the docs page, health, status and metrics', async () => {
    const { url } = service();
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(openapi.openapi).toMatch(/^3\./);
    for (const path of ['/', '/health', '/upload', '/upload-status', '/ask', '/search', '/indexes', '/documents', '/download', '/mcp']) {
      expect(openapi.paths).toHaveProperty([path]);
    }
    // the web console (@km/console) is served at /ui
    const ui = await fetch(`${url}/ui/`);
    expect(ui.status).toBe(200);
    expect(ui.headers.get('content-type')).toMatch(/text\/html/);
    const docs = await fetch(`${url}/docs`);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(await docs.text()).toContain('/openapi.json');
    expect((await fetch(`${url}/docs/swagger-ui-bundle.js`)).status).toBe(200);
    await expectProblem(await fetch(`${url}/docs/..%2F..%2Fpackage.json`), 404);

    expect(await (await fetch(`${url}/health`)).text()).toBe('Healthy');
    expect(await (await fetch(`${url}/`)).json()).toMatch(/^Ingestion service is running\. Uptime: \d+ secs\.$/);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/km_pipeline_step_duration_seconds_count\{step="extract",result="success"\} [1-9]/);
    expect(metrics).toMatch(/km_http_request_duration_seconds_count\{method="POST",route="\/upload",status="202"\} [1-9]/);
  });

  it('echoes the request id and logs one structured line per request with it', async () => {
    const res = await fetch(`${service().url}/indexes`, { headers: { 'x-request-id': 'trace-42' } });
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    await vi.waitFor(() => {
      const line = service()
        .logs.map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.requestId === 'trace-42');
      expect(line).toMatchObject({ method: 'GET', url: '/indexes', status: 200, msg: 'request' });
    });
    const generated = await fetch(`${service().url}/indexes`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('bad input gets a 4xx ProblemDetails and loses nothing', () => {
  const service = useTestService({ overrides: { maxUploadBytes: 64 * 1024 } });

  const post = (path: string, body: RequestInit['body'], headers: Record<string, string> = {}) =>
    fetch(`${service().url}${path}`, { method: 'POST', body, headers });
  const json = (path: string, body: unknown) =>
    post(path, typeof body === 'string' ? body : JSON.stringify(body), { 'content-type': 'application/json' });
  const file = [{ name: 'a.txt', content: 'hello' }];

  const cases: Array<[string, () => Promise<Response>, number, RegExp]> = [
    ['upload without a file', () => post('/upload', uploadForm({ documentId: 'nofile' }, [])), 400, /No file was uploaded/],
    ['upload that is not multipart', () => json('/upload', { documentId: 'x' }), 400, /multipart/],
    ['tag without a key', () => post('/upload', uploadForm({ documentId: 'bad-tag', tags: ':value' }, file)), 400, /no key/],
    ['reserved tag key', () => post('/upload', uploadForm({ documentId: 'reserved', tags: '__document_id:other' }, file)), 400, /reserved/],
    ['invalid index name', () => post('/upload', uploadForm({ index: 'bad*index', documentId: 'idx' }, file)), 400, /index name/],
    ['two index values', () => post('/upload', uploadForm({ index: ['a', 'b'], documentId: 'two' }, file)), 400, /multiple values/],
    ['path traversal in the document id', () => post('/upload', uploadForm({ documentId: '../../etc' }, file)), 400, /document id/],
    [
      'path traversal in a file name',
      () => post('/upload', uploadForm({ documentId: 'traversal' }, [{ name: '../../evil.txt', content: 'x' }])),
      400,
      /file name/,
    ],
    ['the same file name twice', () => post('/upload', uploadForm({ documentId: 'dupes' }, [...file, ...file])), 400, /twice/],
    ['args that are not a JSON object', () => post('/upload', uploadForm({ documentId: 'args', args: '[1,2]' }, file)), 400, /args/],
    [
      'an unknown pipeline step',
      () => post('/upload', uploadForm({ documentId: 'steps', steps: 'extract,teleport' }, file)),
      400,
      /teleport/,
    ],
    [
      'an upload over the limit',
      () => post('/upload', uploadForm({ documentId: 'huge' }, [{ name: 'big.txt', content: 'x'.repeat(200 * 1024) }])),
      413,
      /limit/,
    ],
    ['malformed JSON', () => json('/search', '{"query": '), 400, /JSON/],
    ['a JSON array body', () => json('/search', [1, 2]), 400, /object/],
    ['ask without a question', () => json('/ask', { index: 'default' }), 400, /question/],
    ['filters that are not a list', () => json('/search', { query: 'x', filters: { topic: ['a'] } }), 400, /filters/],
    ['a filter value that is not a string', () => json('/search', { query: 'x', filters: [{ topic: [42] }] }), 400, /filter/],
    [
      'a reserved-looking filter key with bad characters',
      () => json('/ask', { question: 'x', filters: [{ '': ['a'] }] }),
      400,
      /filter|key/,
    ],
    ['a limit that is not an integer', () => json('/search', { query: 'x', limit: 'ten' }), 400, /limit/],
    ['status without a document id', () => fetch(`${service().url}/upload-status?index=default`), 400, /documentId/],
    ['status of an unknown document', () => fetch(`${service().url}/upload-status?documentId=nobody`), 404, /not found/],
    ['status in an unknown index', () => fetch(`${service().url}/upload-status?index=nowhere&documentId=nobody`), 404, /not found/],
    ['download of an unknown file', () => fetch(`${service().url}/download?documentId=nobody&filename=a.txt`), 404, /not found/],
    [
      'download with a traversal file name',
      () => fetch(`${service().url}/download?documentId=nobody&filename=..%2F..%2Fsecret`),
      400,
      /file name/,
    ],
    ['delete without a document id', () => fetch(`${service().url}/documents`, { method: 'DELETE' }), 400, /documentId/],
    ['an unknown route', () => fetch(`${service().url}/teleport`), 404, /no route/],
  ];

  it.each(cases)('%s', async (_name, request, status, detail) => {
    await expectProblem(await request(), status, detail);
    expect((await fetch(`${service().url}/health`)).status).toBe(200);
  });

  it('left no document, index or spooled file behind', async () => {
    expect(await (await fetch(`${service().url}/indexes`)).json()).toEqual({ results: [] });
    for (const id of ['nofile', 'bad-tag', 'reserved', 'traversal', 'dupes', 'args', 'steps', 'huge']) {
      expect((await fetch(`${service().url}/upload-status?documentId=${id}`)).status).toBe(404);
    }
    expect(await readdir(join(service().config.dataDirectory, 'tmp', 'uploads'))).toEqual([]);
  });
});

describe('access keys', () => {
  const key1 = 'k1-'.padEnd(40, 'a');
  const key2 = 'k2-'.padEnd(40, 'b');
  const service = useTestService({ overrides: { auth: { enabled: true, keys: [key1, key2] } } });

  it('answers 401 without a key, 403 with a wrong one, and accepts either configured key', async () => {
    const { url } = service();
    const missing = await expectProblem(await fetch(`${url}/indexes`), 401);
    expect(missing.detail).toMatch(/Authorization/);
    await expectProblem(await fetch(`${url}/indexes`, { headers: { authorization: 'wrong-key' } }), 403);
    await expectProblem(await fetch(`${url}/indexes`, { headers: { authorization: `${key1}x` } }), 403);
    expect((await fetch(`${url}/indexes`, { headers: { authorization: key1 } })).status).toBe(200);
    expect((await fetch(`${url}/indexes`, { headers: { authorization: key2 } })).status).toBe(200);
    await expectProblem(await fetch(`${url}/upload`, { method: 'POST', body: uploadForm({}, [{ name: 'a.txt', content: 'x' }]) }), 401);
    await expectProblem(await fetch(`${url}/metrics`), 401);
  });

  it('keeps health and the API description open', async () => {
    expect((await fetch(`${service().url}/health`)).status).toBe(200);
    expect((await fetch(`${service().url}/openapi.json`)).status).toBe(200);
    const doc = (await (await fetch(`${service().url}/openapi.json`)).json()) as { components: { securitySchemes: unknown } };
    expect(doc.components.securitySchemes).toEqual({
      auth: expect.objectContaining({ type: 'apiKey', name: 'Authorization', in: 'header' }),
    });
  });

  it('runs the whole flow with a key', async () => {
    const headers = { authorization: key2 };
    const res = await fetch(`${service().url}/upload`, {
      method: 'POST',
      headers,
      body: uploadForm({ documentId: 'secret' }, [{ name: 's.txt', content: MOON }]),
    });
    expect(res.status).toBe(202);
    await waitForCompletion(service().url, 'secret', '', headers);
    const ask = await fetch(`${service().url}/ask`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'At what average distance does the Moon orbit?' }),
    });
    expect(((await ask.json()) as { text: string }).text).toContain('384,400');
  });
});
