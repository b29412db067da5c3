import { startRequestRecorder, type RecordedRequest, type RequestRecorder } from '@km/conformance';
import { MemoryFilters, isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ElasticsearchMemoryDb, scoreFromRelevance } from '../src/index.js';

// A recorder that answers like Elasticsearch's REST API, to check the requests the connector
// sends against the API reference. Shapes only: the conformance suite against a real
// Elasticsearch (tests-integration) proves the connector works.
let recorder: RequestRecorder;
let node: string;
let seen: RecordedRequest[];
let dims: number | undefined;
let listPages: Array<Array<{ id: string }>> = [];

function answer(method: string, path: string, body: string): { status: number; json: unknown } {
  if (method === 'GET' && path.endsWith('/_mapping')) {
    if (dims === undefined)
      return { status: 404, json: { error: { type: 'index_not_found_exception', reason: 'no such index' }, status: 404 } };
    return { status: 200, json: { 'km-notes': { mappings: { properties: { embedding: { type: 'dense_vector', dims } } } } } };
  }
  if (path.startsWith('/_cat/indices')) return { status: 200, json: [{ index: 'km-notes' }, { index: 'km-a.b' }, { index: 'other' }] };
  if (path.startsWith('/_bulk')) return { status: 200, json: { errors: false, took: 1, items: [] } };
  if (path.endsWith('/_search')) {
    const request = JSON.parse(body) as { knn?: unknown };
    if (request.knn) {
      const source = { id: 'd=a//p=1', tags: ['user:a'], payload: { text: 'x' } };
      return { status: 200, json: { hits: { hits: [{ _id: 'd=a//p=1', _score: scoreFromRelevance(0.6), _source: source }] } } };
    }
    const page = listPages.shift() ?? [];
    return {
      status: 200,
      json: { hits: { hits: page.map(({ id }) => ({ _id: id, _source: { id, tags: [], payload: {} }, sort: [id] })) } },
    };
  }
  return { status: 200, json: { acknowledged: true } };
}

beforeAll(async () => {
  recorder = await startRequestRecorder(({ method, path, body }) => {
    const { status, json } = answer(method, new URL(path, 'http://x').pathname, body);
    return { status, json, headers: { 'x-elastic-product': 'Elasticsearch' } };
  });
  ({ url: node, requests: seen } = recorder);
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  dims = undefined;
  listPages = [];
});

const db = (extra: Partial<ConstructorParameters<typeof ElasticsearchMemoryDb>[0]> = {}) =>
  new ElasticsearchMemoryDb({ node, maxRetries: 0, ...extra });

describe('Elasticsearch requests', () => {
  it('createIndex: id keyword, tags keyword, payload not indexed, content text, cosine dense_vector with HNSW', async () => {
    await db({ numberOfShards: 1 }).createIndex(' Notes ', 3);
    const create = seen.find((s) => s.method === 'PUT' && s.path.startsWith('/km-notes'));
    expect(JSON.parse(create!.body)).toEqual({
      mappings: {
        dynamic: 'strict',
        properties: {
          id: { type: 'keyword' },
          tags: { type: 'keyword' },
          payload: { type: 'object', enabled: false },
          content: { type: 'text' },
          embedding: {
            type: 'dense_vector',
            dims: 3,
            index: true,
            similarity: 'cosine',
            index_options: { type: 'hnsw', m: 16, ef_construction: 100 },
          },
        },
      },
      settings: { number_of_shards: 1 },
    });
  });

  it('upsertBatch: one bulk request per batch, index actions with the km id as _id, refresh=wait_for', async () => {
    dims = 2;
    const ids = await db({ batchSize: 2 }).upsertBatch(
      'notes',
      ['a', 'b', 'c'].map((id) => ({ id, vector: [1, 1], tags: { u: ['x'] }, payload: { text: id } })),
    );
    expect(ids).toEqual(['a', 'b', 'c']);
    const bulks = seen.filter((s) => s.path.startsWith('/_bulk'));
    expect(bulks.map((b) => b.path)).toEqual([
      '/_bulk?refresh=wait_for&require_alias=false',
      '/_bulk?refresh=wait_for&require_alias=false',
    ]);
    const lines = bulks[0]!.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      { index: { _index: 'km-notes', _id: 'a' } },
      { id: 'a', tags: ['u:x'], payload: { text: 'a' }, content: 'a', embedding: [1, 1] },
      { index: { _index: 'km-notes', _id: 'b' } },
      { id: 'b', tags: ['u:x'], payload: { text: 'b' }, content: 'b', embedding: [1, 1] },
    ]);
  });

  it('upsertBatch refuses a missing index, a wrong size or a zero vector before sending a bulk request', async () => {
    const record = (vector: number[]) => ({ id: 'a', vector, tags: {}, payload: {} });
    await expect(db().upsert('notes', record([1, 1]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'index_not_found'));
    dims = 3;
    await expect(db().upsert('notes', record([1, 1]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    await expect(db().upsert('notes', record([0, 0, 0]))).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
    expect(seen.some((s) => s.path.startsWith('/_bulk'))).toBe(false);
  });

  it('getSimilarList: a kNN search with the filter as its pre-filter (minRelevance applied by core), relevance back as cosine', async () => {
    dims = 3;
    const results = [];
    for await (const r of db({ numCandidates: 50 }).getSimilarList('notes', [1, 0, 0], {
      filters: [MemoryFilters.byTag('user', 'a')],
      minRelevance: 0.5,
      limit: 5,
    })) {
      results.push(r);
    }
    const search = seen.find((s) => s.path.startsWith('/km-notes/_search'))!;
    expect(search.path).toContain('ignore_unavailable=true');
    expect(JSON.parse(search.body)).toEqual({
      knn: {
        field: 'embedding',
        query_vector: [1, 0, 0],
        k: 5,
        num_candidates: 50,
        filter: { bool: { filter: [{ term: { tags: 'user:a' } }] } },
      },
      size: 5,
      _source: { excludes: ['content', 'embedding'] },
      track_total_hits: false,
    });
    expect(results.map(([r, relevance]) => [r.id, relevance])).toEqual([['d=a//p=1', expect.closeTo(0.6, 12)]]);
  });

  it('getList pages with search_after on the id keyword', async () => {
    dims = 3;
    listPages = [Array.from({ length: 1000 }, (_, i) => ({ id: `r${String(i).padStart(4, '0')}` })), [{ id: 'r1000' }]];
    let count = 0;
    for await (const _ of db().getList('notes', { filters: [MemoryFilters.notTag('u', 'x')] })) count++;
    expect(count).toBe(1001);
    const searches = seen.filter((s) => s.path.startsWith('/km-notes/_search')).map((s) => JSON.parse(s.body) as Record<string, unknown>);
    expect(searches[0]).toMatchObject({
      query: { bool: { filter: [{ bool: { must_not: [{ term: { tags: 'u:x' } }] } }] } },
      sort: [{ id: 'asc' }],
      size: 1000,
    });
    expect(searches[0]).not.toHaveProperty('search_after');
    expect(searches[1]).toMatchObject({ search_after: ['r0999'] });
  });

  it('getList streams: the first record comes before the second page is asked for', async () => {
    dims = 3;
    listPages = [Array.from({ length: 1000 }, (_, i) => ({ id: `r${String(i).padStart(4, '0')}` })), [{ id: 'r1000' }]];
    const searchCount = () => seen.filter((s) => s.path.startsWith('/km-notes/_search')).length;
    const counts: number[] = [];
    for await (const record of db().getList('notes', { withEmbeddings: true })) {
      if (record.id === 'r0000' || record.id === 'r0999' || record.id === 'r1000') counts.push(searchCount());
    }
    expect(counts).toEqual([1, 1, 2]);
  });

  it('index names: {indexPrefix}{index} as before, 255 bytes in all; a name Elasticsearch refuses is invalid_index_name', async () => {
    expect(db().indexName(' Notes ')).toBe('km-notes');
    expect(db({ indexPrefix: 'mem.' }).indexName('-dash')).toBe('mem.-dash');
    expect(db().maxIndexNameLength).toBe(252);
    await expect(db({ indexPrefix: '' }).createIndex('-dash', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    await expect(db().createIndex('x'.repeat(253), 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('credentials: an API key and basic auth travel in the Authorization header', async () => {
    expect(await db({ apiKey: 'a2V5' }).getIndexes()).toEqual(['notes']);
    expect(seen.at(-1)!.headers.authorization).toBe('ApiKey a2V5');
    await db({ username: 'elastic', password: 'pw' }).getIndexes();
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('elastic:pw').toString('base64')}`);
  });
});
