import { startRequestRecorder, type RecordedRequest, type RecorderAnswer, type RequestRecorder } from '@km/conformance';
import { AzureKeyCredential } from '@azure/search-documents';
import { isKmError, MemoryFilters } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KmRecordLayout } from '@km/core/connector';
import { AzureAiSearchMemoryDb, AzureAiSearchVectorStoreDriver, documentKeyOf, scoreFromRelevance } from '../src/index.js';
import { KM_INDEX_LAYOUT } from '../src/vector-store/azure-index-layout.js';
import { credentialOf } from '../src/azure-ai-search-config.js';

// A recorder that answers like the Azure AI Search REST API (api-version 2026-04-01): index
// definitions at /indexes('name') (`dimensions`, `vectorSearchProfile`), documents through
// /docs/search.index (`@search.action`) and /docs/search.post.search (`vectorQueries`,
// `vectorFilterMode`, `@search.score`). Shapes only: whether the connector works is for the
// conformance suite against a real service (tests-integration).
let recorder: RequestRecorder;
let seen: RecordedRequest[];
let dims: number | undefined;
let answerNext: Array<RecorderAnswer | undefined> = [];
let searchPages: Array<Array<Record<string, unknown>>> = [];

const wireIndex = (size: number) => ({
  name: 'km-notes',
  fields: [
    { name: 'id', type: 'Edm.String', key: true },
    { name: 'embedding', type: 'Collection(Edm.Single)', dimensions: size, vectorSearchProfile: 'km-vector-profile' },
  ],
});
const notFound = { status: 404, json: { error: { code: '', message: "No index with the name 'km-notes' was found" } } };

function answer({ method, path, json }: RecordedRequest): RecorderAnswer {
  const planned = answerNext.shift();
  if (planned) return planned;
  const route = path.split('?')[0]!;
  if (method === 'GET' && route === "/indexes('km-notes')") return dims === undefined ? notFound : { json: wireIndex(dims) };
  if (method === 'GET' && route.startsWith("/indexes('")) return notFound;
  if (method === 'GET' && route === '/indexes')
    return { json: { value: ['km-notes', 'km-a-b', 'other', 'km-A'].map((name) => ({ name })) } };
  if (method === 'POST' && route === '/indexes') return { status: 201, json };
  if (method === 'DELETE') return { status: 204, json: {} };
  if (route.endsWith('/docs/search.index')) {
    const actions = (json as { value: Array<{ id: string }> }).value;
    return { json: { value: actions.map((a) => ({ key: a.id, status: true, statusCode: 200 })) } };
  }
  if (route.endsWith('/docs/search.post.search')) return { json: { value: searchPages.shift() ?? [] } };
  return { status: 500, json: { error: { message: `unexpected ${method} ${path}` } } };
}

beforeAll(async () => {
  recorder = await startRequestRecorder(answer);
  seen = recorder.requests;
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  dims = undefined;
  answerNext = [];
  searchPages = [];
});

type Options = ConstructorParameters<typeof AzureAiSearchMemoryDb>[0];
const options = (extra: Partial<Options> = {}): Options =>
  ({ endpoint: recorder.url, apiKey: 'secret-key', allowInsecureConnection: true, maxRetries: 0, ...extra }) as Options;
const db = (extra: Partial<Options> = {}) => new AzureAiSearchMemoryDb(options(extra));
const doc = (id: string, extra: Record<string, unknown> = {}) => ({
  id: documentKeyOf(id),
  tags: ['user:a'],
  payload: '{"text":"x"}',
  ...extra,
});
const bodies = (fragment: string) => seen.filter((s) => s.path.includes(fragment)).map((s) => s.json as Record<string, unknown>);
const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('Azure AI Search requests', () => {
  it('createIndex: POST /indexes with the key, tags, payload, content and a cosine HNSW vector field; api-key header', async () => {
    await db().createIndex(' Notes ', 3);
    const create = seen.find((s) => s.method === 'POST' && s.path === '/indexes?api-version=2026-04-01')!;
    expect(create.headers['api-key']).toBe('secret-key');
    const plain = { searchable: false, filterable: false, sortable: false, facetable: false };
    expect(create.json).toEqual({
      name: 'km-notes',
      fields: [
        { name: 'id', type: 'Edm.String', key: true, ...plain, filterable: true, sortable: true },
        { name: 'recordId', type: 'Edm.String', ...plain },
        { name: 'tags', type: 'Collection(Edm.String)', ...plain, filterable: true },
        { name: 'payload', type: 'Edm.String', ...plain },
        { name: 'content', type: 'Edm.String', retrievable: false, ...plain, searchable: true },
        {
          name: 'embedding',
          type: 'Collection(Edm.Single)',
          ...plain,
          searchable: true,
          dimensions: 3,
          vectorSearchProfile: 'km-vector-profile',
        },
      ],
      vectorSearch: {
        profiles: [{ name: 'km-vector-profile', algorithm: 'km-hnsw-cosine' }],
        algorithms: [{ name: 'km-hnsw-cosine', kind: 'hnsw', hnswParameters: { metric: 'cosine' } }],
      },
    });
  });

  it('createIndex refuses vectors of fewer than 2 dimensions (the service minimum) before sending anything', async () => {
    await expect(db().createIndex('notes', 1)).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'invalid_argument') && /at least 2/.test(e.message),
    );
    expect(seen.filter((s) => s.method === 'POST')).toHaveLength(0);
  });

  it('upsertBatch: one search.index request per batch of `upload` actions (the whole document), ids as keys', async () => {
    dims = 2;
    const ids = await db({ batchSize: 2 }).upsertBatch(
      'notes',
      ['a', 'b', 'c'].map((id) => ({ id, vector: [1, 1], tags: { u: ['x'] }, payload: { text: `text ${id}` } })),
    );
    expect(ids).toEqual(['a', 'b', 'c']);
    const batches = seen.filter((s) => s.path.includes('/docs/search.index'));
    expect(batches.map((b) => [b.method, b.path])).toEqual([
      ['POST', "/indexes('km-notes')/docs/search.index?api-version=2026-04-01"],
      ['POST', "/indexes('km-notes')/docs/search.index?api-version=2026-04-01"],
    ]);
    expect(batches[0]!.json).toEqual({
      value: ['a', 'b'].map((id) => ({
        '@search.action': 'upload',
        id: documentKeyOf(id),
        recordId: id,
        tags: ['u:x'],
        payload: JSON.stringify({ text: `text ${id}` }),
        content: `text ${id}`,
        embedding: [1, 1],
      })),
    });
  });

  it('upsertBatch checks every document result: a refused one throws, a conflicting, unavailable or throttled one is transient', async () => {
    // The typed driver under AzureAiSearchMemoryDb, as it builds it (the memory DB reads the index first).
    const driver = new AzureAiSearchVectorStoreDriver({ ...options(), collectionPrefix: '', layout: KM_INDEX_LAYOUT });
    const definition = new KmRecordLayout().definition(2);
    const record = { id: 'a', tags: [], payload: '{}', content: '', embedding: new Float32Array([1, 1]) };
    const upsert = (records: Array<typeof record>) => driver.upsert('km-notes', definition, records);
    const failing = (statusCode: number) => ({
      json: { value: [{ key: documentKeyOf('a'), status: false, statusCode, errorMessage: 'nope' }] },
      status: 207,
    });
    answerNext = [failing(400)];
    await expect(upsert([record])).rejects.toSatisfy((e: unknown) => isKmError(e, 'upstream_error'));
    // 409 (version conflict), 422 (index temporarily unavailable) and 503 (too busy) are worth retrying.
    for (const statusCode of [409, 422, 503]) {
      answerNext = [failing(statusCode)];
      await expect(upsert([record]), String(statusCode)).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient') && e.transient);
    }
    answerNext = [notFound]; // the memory DB maps it to index_not_found
    await expect(upsert([record])).rejects.toSatisfy((e: unknown) => isKmError(e, 'collection_not_found'));
    const long = { ...record, id: 'x'.repeat(321) };
    seen.length = 0;
    await expect(upsert([record, long])).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
    expect(seen).toHaveLength(0);
  });

  it('getSimilarList: one vector query with the OData pre-filter; relevance back as the cosine, minRelevance honoured', async () => {
    dims = 3;
    searchPages = [
      [
        { '@search.score': scoreFromRelevance(0.8), ...doc('d=a//p=1') },
        { '@search.score': scoreFromRelevance(0.4), ...doc('d=b//p=1') },
      ],
    ];
    const results = await collect(
      db().getSimilarList('notes', [1, 0, 0], { filters: [MemoryFilters.byTag('user', 'a')], minRelevance: 0.5, limit: 5 }),
    );
    expect(results.map(([r, relevance]) => [r.id, relevance])).toEqual([['d=a//p=1', expect.closeTo(0.8, 12)]]);
    expect(results[0]![0]).toMatchObject({ tags: { user: ['a'] }, payload: { text: 'x' } });
    expect(bodies('/docs/search.post.search')).toEqual([
      {
        vectorQueries: [{ kind: 'vector', vector: [1, 0, 0], k: 5, fields: 'embedding' }],
        vectorFilterMode: 'preFilter',
        filter: "tags/any(t: t eq 'user:a')",
        top: 5,
        select: 'id,tags,payload',
      },
    ]);
  });

  it('withEmbeddings selects the vector too', async () => {
    dims = 2;
    searchPages = [[{ '@search.score': 1, ...doc('a', { embedding: [0.5, 0.5] }) }]];
    const [found] = await collect(db().getSimilarList('notes', [1, 1], { withEmbeddings: true }));
    expect(Array.from(found![0].vector)).toEqual([0.5, 0.5]);
    expect(bodies('/docs/search.post.search')[0]).toMatchObject({ select: 'id,tags,payload,embedding' });
  });

  it('lexical: a simple-syntax search of content, special characters escaped, any word, global BM25 statistics, best first then id', async () => {
    dims = 2;
    searchPages = [[{ '@search.score': 3, ...doc('b') }]];
    const hostile = `tax -rules "x" (a|b)* ') or true`;
    const results = await collect(
      db().getSimilarList('notes', hostile, { mode: 'lexical', limit: 4, filters: [MemoryFilters.notTag('user', 'z')] }),
    );
    expect(results.map(([r, score]) => [r.id, score])).toEqual([['b', 0.75]]);
    expect(bodies('/docs/search.post.search')).toEqual([
      {
        search: `tax \\-rules \\"x\\" \\(a\\|b\\)\\* \\'\\) or true`,
        searchFields: 'content',
        queryType: 'simple',
        searchMode: 'any',
        scoringStatistics: 'global', // BM25 over the whole index, not per shard (small indexes rank as they should)
        filter: "not tags/any(t: t eq 'user:z')",
        orderby: 'search.score() desc,id asc',
        top: 4,
        select: 'id,tags,payload',
      },
    ]);
    seen.length = 0;
    expect(await collect(db().getSimilarList('notes', '*', { mode: 'lexical' }))).toEqual([]);
    expect(bodies('/docs/search.post.search')).toEqual([]); // an empty search would match everything
  });

  it('hybrid: a vector query and a lexical search of max(limit, 50) each, fused by core; relevance is the cosine', async () => {
    dims = 2;
    searchPages = [
      [{ '@search.score': scoreFromRelevance(1), ...doc('near', { embedding: [1, 0] }) }],
      [
        { '@search.score': 4, ...doc('far', { embedding: [-1, 0] }) },
        { '@search.score': 1, ...doc('near', { embedding: [1, 0] }) },
      ],
    ];
    const results = await collect(db().getSimilarList('notes', [1, 0], { mode: 'hybrid', text: 'zephyr', limit: 2, minRelevance: -1 }));
    const [vector, words] = bodies('/docs/search.post.search');
    expect(vector).toMatchObject({ vectorQueries: [{ k: 50 }], top: 50 });
    expect(words).toMatchObject({ search: 'zephyr', searchFields: 'content', top: 50, select: 'id,tags,payload,embedding' });
    expect(results.map(([r, cosine]) => [r.id, cosine])).toEqual([
      ['near', expect.closeTo(1, 6)],
      ['far', expect.closeTo(-1, 6)],
    ]);
  });

  it('getList: search * ordered by the key, pages of 1000 after the last key seen, limit honoured', async () => {
    dims = 2;
    const ids = Array.from({ length: 1001 }, (_, i) => `r${String(i).padStart(4, '0')}`);
    searchPages = [ids.slice(0, 1000).map((id) => doc(id)), ids.slice(1000).map((id) => doc(id))];
    const listed = await collect(db().getList('notes', { filters: [MemoryFilters.byTag('user', 'a'), MemoryFilters.byTag('user', 'b')] }));
    expect(listed.map((r) => r.id)).toEqual(ids);
    const filter = "tags/any(t: search.in(t, 'user:a|user:b', '|'))";
    expect(bodies('/docs/search.post.search')).toEqual([
      { search: '*', filter, orderby: 'id asc', top: 1000, select: 'id,tags,payload' },
      { search: '*', filter: `(${filter}) and id gt '${documentKeyOf('r0999')}'`, orderby: 'id asc', top: 1000, select: 'id,tags,payload' },
    ]);
    seen.length = 0;
    searchPages = [['a', 'b'].map((id) => doc(id))];
    expect((await collect(db().getList('notes', { limit: 2 }))).map((r) => r.id)).toEqual(['a', 'b']);
    expect(bodies('/docs/search.post.search')).toEqual([{ search: '*', orderby: 'id asc', top: 2, select: 'id,tags,payload' }]);
  });

  it('delete: a `delete` action by key; deleteIndex: DELETE /indexes(name); getIndexes: names under the prefix', async () => {
    dims = 2;
    await db().delete('notes', { id: 'd=a//p=1' });
    expect(bodies('/docs/search.index')).toEqual([{ value: [{ '@search.action': 'delete', id: documentKeyOf('d=a//p=1') }] }]);
    await db().deleteIndex('notes');
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', path: "/indexes('km-notes')?api-version=2026-04-01" });
    expect(await db().getIndexes()).toEqual(['a-b', 'notes']);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', path: '/indexes?api-version=2026-04-01&%24select=name' });
  });

  it('an Entra credential goes to the bearer-token policy, never as an api-key (which refuses http:// before sending)', async () => {
    let asked = 0;
    const credential = {
      getToken: async () => {
        asked++;
        return { token: 'entra-token', expiresOnTimestamp: Date.now() + 3_600_000 };
      },
    };
    // The SDK's bearer policy refuses plain http even with allowInsecureConnection, so over the
    // local recorder the request never leaves: no api-key header, no token sent in clear.
    await expect(new AzureAiSearchMemoryDb(options({ apiKey: undefined, credential })).getIndexes()).rejects.toThrow(
      /Bearer token authentication is not permitted for non-TLS/,
    );
    expect(seen).toHaveLength(0);
    expect(asked).toBe(0);
    expect(credentialOf(options({ apiKey: undefined, credential }))).toBe(credential);
    expect(credentialOf(options())).toBeInstanceOf(AzureKeyCredential);
    for (const both of [options({ credential }), options({ apiKey: undefined })]) {
      expect(() => new AzureAiSearchMemoryDb(both)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});

describe('AzureAiSearchMemoryDb options', () => {
  it('index names: prefix plus the normalised name, 128 characters with the prefix; names the service refuses are invalid_index_name', async () => {
    expect(db().indexName(' Notes ')).toBe('km-notes');
    expect(db({ indexPrefix: 'team_a-' }).indexName('x1')).toBe('team_a-x1');
    expect(db().maxIndexNameLength).toBe(125);
    await expect(db().createIndex('a  b', 2)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    await expect(db().upsert('a._b', { id: 'a', vector: [1, 0], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_index_name'),
    );
    expect(seen).toHaveLength(0);
  });

  it('refuses a bad prefix or endpoint when built', () => {
    for (const bad of [options({ indexPrefix: 'KM-' }), options({ indexPrefix: 'a--' }), options({ endpoint: 'my-search' })]) {
      expect(() => new AzureAiSearchMemoryDb(bad)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});

describe('Azure AI Search errors', () => {
  it('a missing index: reads yield nothing, deletes do nothing, upserts throw index_not_found', async () => {
    expect(await collect(db().getSimilarList('notes', [1, 0]))).toEqual([]);
    expect(await collect(db().getList('notes'))).toEqual([]);
    await db().delete('notes', { id: 'a' });
    await db().deleteIndex('notes');
    await expect(db().upsert('notes', { id: 'a', vector: [1, 0], tags: {}, payload: {} })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'index_not_found'),
    );
    expect(seen.some((s) => s.path.includes('/docs/'))).toBe(false);
  });

  it('401 is unauthorized; 429 is rate_limited with the Retry-After the service sent', async () => {
    answerNext = [{ status: 401, json: { error: { message: 'Access denied' } } }];
    await expect(db().getIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized') && !e.transient);
    answerNext = [{ status: 429, json: { error: { message: 'Too many requests' } }, headers: { 'retry-after': '3' } }];
    await expect(db().getIndexes()).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'rate_limited') && e.transient && e.retryAfterMs === 3000,
    );
  });

  it('with retries on, the SDK waits the Retry-After of a 429 and sends the request again', async () => {
    answerNext = [{ status: 429, json: { error: { message: 'Too many requests' } }, headers: { 'retry-after': '0' } }];
    expect(await db({ maxRetries: 1 }).getIndexes()).toEqual(['a-b', 'notes']);
    expect(seen.filter((s) => s.path.startsWith('/indexes?'))).toHaveLength(2);
  });
});
