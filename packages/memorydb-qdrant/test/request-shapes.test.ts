import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryFilters, isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QdrantMemoryDb, pointIdOf } from '../src/index.js';

// A recorder that answers like Qdrant's REST API, to check the requests the connector sends
// (paths, query strings, bodies) against the API reference. It checks shapes only: whether the
// connector works is proven by the conformance suite against a real Qdrant (tests-integration).
interface Seen {
  method: string;
  path: string;
  body: unknown;
}
let server: Server;
let url: string;
const seen: Seen[] = [];
let collectionSize: number | undefined;

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

function answer(method: string, path: string): { status: number; result: unknown } {
  const ok = (result: unknown) => ({ status: 200, result });
  if (method === 'GET' && /^\/collections\/[^/]+$/.test(path)) {
    return collectionSize === undefined ? { status: 404, result: null } : ok({ config: { params: { vectors: { size: collectionSize, distance: 'Cosine' } } } });
  }
  if (path.endsWith('/points/query')) {
    const payload = { id: 'd=a//p=1', tags: ['user:a'], payload: { text: 'x' }, norm: 2 };
    return ok({ points: [{ id: pointIdOf('d=a//p=1'), version: 1, score: 0.5, payload, vector: [0, 1, 0] }] });
  }
  if (path.endsWith('/points/scroll')) {
    return ok({ points: ['c', 'a', 'b'].map((id) => ({ id: pointIdOf(id), payload: { id } })), next_page_offset: null });
  }
  if (method === 'POST' && /\/points$/.test(path)) return ok([{ id: pointIdOf('a'), payload: { id: 'a', tags: [], payload: {} } }]);
  return ok(true);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const u = new URL(req.url!, 'http://x');
      seen.push({ method: req.method!, path: `${u.pathname}${u.search}`, body });
      const { status, result } = answer(req.method!, u.pathname);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 404 ? { status: { error: 'Not found: Collection `x` doesn\'t exist!' } } : { result, status: 'ok', time: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
  collectionSize = undefined;
});

const last = (fragment: string) => [...seen].reverse().find((s) => s.path.includes(fragment));

describe('Qdrant requests', () => {
  it('createIndex: a cosine collection of the given size, then a keyword payload index on tags', async () => {
    const db = new QdrantMemoryDb({ url, collectionPrefix: 'km-' });
    await db.createIndex(' Notes ', 3);
    expect(seen.find((s) => s.method === 'PUT' && s.path === '/collections/km-notes')?.body).toEqual({
      vectors: { size: 3, distance: 'Cosine' },
    });
    expect(last('/index')).toMatchObject({ method: 'PUT', path: '/collections/km-notes/index?wait=true', body: { field_name: 'tags', field_schema: 'keyword' } });
  });

  it('upsertBatch: points with derived UUIDs in one request per batch, wait=true', async () => {
    collectionSize = 2;
    const db = new QdrantMemoryDb({ url, batchSize: 2 });
    const ids = await db.upsertBatch('i', ['a', 'b', 'c'].map((id) => ({ id, vector: [1, 1], tags: {}, payload: { text: id } })));
    expect(ids).toEqual(['a', 'b', 'c']);
    const upserts = seen.filter((s) => s.method === 'PUT' && s.path.startsWith('/collections/i/points'));
    expect(upserts.map((s) => s.path)).toEqual(['/collections/i/points?wait=true', '/collections/i/points?wait=true']);
    expect((upserts[0]!.body as { points: Array<{ id: string }> }).points.map((p) => p.id)).toEqual([pointIdOf('a'), pointIdOf('b')]);
  });

  it('createIndex on an existing collection of another size throws vector_size_mismatch and creates nothing', async () => {
    collectionSize = 4;
    await expect(new QdrantMemoryDb({ url }).createIndex('notes', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('upsertBatch refuses a wrong vector size before sending anything', async () => {
    collectionSize = 3;
    const db = new QdrantMemoryDb({ url });
    await expect(db.upsert('i', { id: 'a', vector: [1, 1], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('getSimilarList: one query request with the filter, limit and score_threshold; the vector comes back at its length', async () => {
    const db = new QdrantMemoryDb({ url, hnswEf: 64 });
    const results = [];
    for await (const r of db.getSimilarList('i', [1, 0, 0], { filters: [MemoryFilters.byTag('user', 'a')], minRelevance: 0.3, limit: 5, withEmbeddings: true })) {
      results.push(r);
    }
    expect(last('/points/query')?.body).toEqual({
      query: [1, 0, 0],
      filter: { must: [{ key: 'tags', match: { value: 'user:a' } }] },
      limit: 5,
      score_threshold: 0.3,
      with_payload: true,
      with_vector: true,
      params: { exact: false, hnsw_ef: 64 },
    });
    expect(results.map(([r, s]) => [r.id, Array.from(r.vector), s])).toEqual([['d=a//p=1', [0, 2, 0], 0.5]]);
  });

  it('getList with a limit scrolls the ids, then retrieves the first ones in km-id order', async () => {
    const db = new QdrantMemoryDb({ url });
    const ids = [];
    for await (const r of db.getList('i', { limit: 1 })) ids.push(r.id);
    expect(last('/points/scroll')?.body).toMatchObject({ with_payload: ['id'], with_vector: false });
    expect(seen.find((s) => s.method === 'POST' && s.path === '/collections/i/points')?.body).toMatchObject({ ids: [pointIdOf('a')] });
    expect(ids).toEqual(['a']);
  });

  it('a missing collection: searching yields nothing, upserting throws index_not_found', async () => {
    collectionSize = undefined;
    const db = new QdrantMemoryDb({ url });
    await expect(db.upsert('gone', { id: 'a', vector: [1], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) => isKmError(e, 'index_not_found'));
  });

  it('the API key travels in the api-key header', async () => {
    const headers: Record<string, string | string[] | undefined>[] = [];
    const listener = (req: IncomingMessage) => headers.push(req.headers);
    server.on('request', listener);
    try {
      await new QdrantMemoryDb({ url, apiKey: 'secret-key' }).getIndexes().catch(() => undefined);
    } finally {
      server.off('request', listener);
    }
    expect(headers[0]?.['api-key']).toBe('secret-key');
  });
});
