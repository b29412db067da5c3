import { startRequestRecorder, type RecordedRequest, type RequestRecorder } from '@km/conformance';
import { MemoryFilters, isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QdrantMemoryDb, pointIdOf } from '../src/index.js';

// A recorder that answers like Qdrant's REST API, to check the requests the connector sends
// (paths, query strings, bodies) against the API reference. It checks shapes only: whether the
// connector works is proven by the conformance suite against a real Qdrant (tests-integration).
let recorder: RequestRecorder;
let url: string;
let seen: RecordedRequest[];
let collectionSize: number | undefined;

function answer(method: string, path: string): { status: number; result: unknown } {
  const ok = (result: unknown) => ({ status: 200, result });
  if (method === 'GET' && /^\/collections\/[^/]+$/.test(path)) {
    return collectionSize === undefined
      ? { status: 404, result: null }
      : ok({ config: { params: { vectors: { size: collectionSize, distance: 'Cosine' } } } });
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
  recorder = await startRequestRecorder(({ method, path }) => {
    const { status, result } = answer(method, new URL(path, 'http://x').pathname);
    return {
      status,
      json: status === 404 ? { status: { error: "Not found: Collection `x` doesn't exist!" } } : { result, status: 'ok', time: 0 },
    };
  });
  ({ url, requests: seen } = recorder);
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  collectionSize = undefined;
});

const last = (fragment: string) => [...seen].reverse().find((s) => s.path.includes(fragment));

describe('Qdrant requests', () => {
  it('createIndex: a cosine collection of the given size, then a keyword payload index on tags', async () => {
    const db = new QdrantMemoryDb({ url, collectionPrefix: 'km-' });
    await db.createIndex(' Notes ', 3);
    expect(seen.find((s) => s.method === 'PUT' && s.path === '/collections/km-notes')?.json).toEqual({
      vectors: { size: 3, distance: 'Cosine' },
    });
    expect(last('/index')).toMatchObject({
      method: 'PUT',
      path: '/collections/km-notes/index?wait=true',
      json: { field_name: 'tags', field_schema: 'keyword' },
    });
  });

  it('upsertBatch: points with derived UUIDs in one request per batch, wait=true', async () => {
    collectionSize = 2;
    const db = new QdrantMemoryDb({ url, batchSize: 2 });
    const ids = await db.upsertBatch(
      'i',
      ['a', 'b', 'c'].map((id) => ({ id, vector: [1, 1], tags: {}, payload: { text: id } })),
    );
    expect(ids).toEqual(['a', 'b', 'c']);
    const upserts = seen.filter((s) => s.method === 'PUT' && s.path.startsWith('/collections/i/points'));
    expect(upserts.map((s) => s.path)).toEqual(['/collections/i/points?wait=true', '/collections/i/points?wait=true']);
    expect((upserts[0]!.json as { points: Array<{ id: string }> }).points.map((p) => p.id)).toEqual([pointIdOf('a'), pointIdOf('b')]);
  });

  it('createIndex on an existing collection of another size throws vector_size_mismatch and creates nothing', async () => {
    collectionSize = 4;
    await expect(new QdrantMemoryDb({ url }).createIndex('notes', 3)).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'vector_size_mismatch'),
    );
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('upsertBatch refuses a wrong vector size before sending anything', async () => {
    collectionSize = 3;
    const db = new QdrantMemoryDb({ url });
    await expect(db.upsert('i', { id: 'a', vector: [1, 1], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'vector_size_mismatch'),
    );
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('getSimilarList: one query request with the filter and limit (minRelevance is applied by MemoryDb); the vector comes back at its length', async () => {
    collectionSize = 3;
    const db = new QdrantMemoryDb({ url, hnswEf: 64 });
    const results = [];
    for await (const r of db.getSimilarList('i', [1, 0, 0], {
      filters: [MemoryFilters.byTag('user', 'a')],
      minRelevance: 0.3,
      limit: 5,
      withEmbeddings: true,
    })) {
      results.push(r);
    }
    expect(last('/points/query')?.json).toEqual({
      query: [1, 0, 0],
      filter: { must: [{ key: 'tags', match: { value: 'user:a' } }] },
      limit: 5,
      with_payload: true,
      with_vector: true,
      params: { exact: false, hnsw_ef: 64 },
    });
    expect(results.map(([r, s]) => [r.id, Array.from(r.vector), s])).toEqual([['d=a//p=1', [0, 2, 0], 0.5]]);
  });

  it('getList with a limit scrolls the ids, then retrieves the first ones in km-id order', async () => {
    collectionSize = 3;
    const db = new QdrantMemoryDb({ url });
    const ids = [];
    for await (const r of db.getList('i', { limit: 1 })) ids.push(r.id);
    expect(last('/points/scroll')?.json).toMatchObject({ with_payload: ['id'], with_vector: false });
    expect(seen.find((s) => s.method === 'POST' && s.path === '/collections/i/points')?.json).toMatchObject({ ids: [pointIdOf('a')] });
    expect(ids).toEqual(['a']);
  });

  it('a missing collection: searching yields nothing, upserting throws index_not_found', async () => {
    collectionSize = undefined;
    const db = new QdrantMemoryDb({ url });
    await expect(db.upsert('gone', { id: 'a', vector: [1], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'index_not_found'),
    );
  });

  it('the API key travels in the api-key header', async () => {
    await new QdrantMemoryDb({ url, apiKey: 'secret-key' }).getIndexes().catch(() => undefined);
    expect(seen[0]?.headers['api-key']).toBe('secret-key');
  });
});
