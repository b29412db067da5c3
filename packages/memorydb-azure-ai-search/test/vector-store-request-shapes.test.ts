import { type RecordedRequest, type RecorderAnswer, type RequestRecorder, startRequestRecorder } from '@km/conformance';
import { isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { documentKeyOf } from '../src/document-key.js';
import { AzureAiSearchVectorStoreDriver } from '../src/vector-store/azure-ai-search-vector-store-driver.js';
import { Counter, Hotel, property } from './vector-store-fixtures.js';

// A recorder answering like the Azure AI Search REST API (index definitions at /indexes('name'),
// documents through /docs/search.index and /docs/search.post.search), to check the requests the
// vector-store driver sends. Shapes only: whether the connector works is for describeVectorStore
// against a real service (tests-integration/test/vector-store-azure-ai-search.test.ts).
let recorder: RequestRecorder;
let seen: RecordedRequest[];
/** Wire definitions of the indexes that exist, by name. */
let indexes: Map<string, unknown>;
let searchPage: Array<Record<string, unknown>>;
/** Pages answered first, in turn, before `searchPage`. */
let searchPages: Array<Array<Record<string, unknown>>>;
let answerNext: RecorderAnswer[];

const notFound = { status: 404, json: { error: { code: '', message: 'No index with that name was found' } } };

/** The wire form of the Counter index (`dimensions`, `vectorSearchProfile`, `hnswParameters`). */
const counterIndex = (dimensions = 2) => ({
  name: 'kmvs-c',
  fields: [
    { name: 'counter_id', type: 'Edm.String', key: true, filterable: true },
    { name: 'label', type: 'Edm.String', filterable: true },
    { name: 'v', type: 'Collection(Edm.Single)', searchable: true, dimensions, vectorSearchProfile: 'kmvs-euclidean' },
  ],
  vectorSearch: {
    profiles: [{ name: 'kmvs-euclidean', algorithm: 'kmvs-hnsw-euclidean' }],
    algorithms: [{ name: 'kmvs-hnsw-euclidean', kind: 'hnsw', hnswParameters: { metric: 'euclidean' } }],
  },
});

function answer({ method, path, json }: RecordedRequest): RecorderAnswer {
  const planned = answerNext.shift();
  if (planned) return planned;
  const route = path.split('?')[0]!;
  const named = /^\/indexes\('([^']+)'\)(.*)$/.exec(route);
  if (method === 'GET' && route === '/indexes')
    return { json: { value: ['kmvs-hotels', 'kmvs-c', 'km-notes', 'kmvsx'].map((name) => ({ name })) } };
  if (method === 'POST' && route === '/indexes') {
    indexes.set((json as { name: string }).name, json);
    return { status: 201, json };
  }
  if (!named) return { status: 500, json: { error: { message: `unexpected ${method} ${path}` } } };
  const [, name, rest] = named;
  if (!indexes.has(name!)) return notFound;
  if (method === 'GET' && rest === '') return { json: indexes.get(name!) };
  if (method === 'DELETE') return { status: 204, json: {} };
  if (rest === '/docs/search.index') {
    const actions = (json as { value: Array<Record<string, unknown>> }).value;
    return { json: { value: actions.map((a) => ({ key: String(Object.values(a)[1]), status: true, statusCode: 200 })) } };
  }
  if (rest === '/docs/search.post.search') return { json: { value: searchPages.shift() ?? searchPage } };
  return { status: 500, json: { error: { message: `unexpected ${method} ${path}` } } };
}

beforeAll(async () => {
  recorder = await startRequestRecorder(answer);
  seen = recorder.requests;
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  indexes = new Map<string, unknown>([
    ['kmvs-hotels', { name: 'kmvs-hotels', fields: [] }],
    ['kmvs-c', counterIndex()],
  ]);
  searchPage = [];
  searchPages = [];
  answerNext = [];
});

const open = () =>
  new AzureAiSearchVectorStoreDriver({ endpoint: recorder.url, apiKey: 'secret-key', allowInsecureConnection: true, maxRetries: 0 });
const requests = (fragment: string) => seen.filter((s) => s.path.includes(fragment));
const hotel = {
  hotelId: 'h1',
  hotel_name: 'Sea View',
  rating: 4.5,
  rooms: 3,
  pets: true,
  opened: new Date('2024-01-02T03:04:05.000Z'),
  tags: ['pool'],
  floors: [1, 2],
  description: null,
  embedding: new Float32Array([1, 0, 0]),
  dotVector: null,
  l2Vector: null,
};

describe('collections', () => {
  it('listCollections lists the indexes under the prefix, without it', async () => {
    expect(await open().listCollections()).toEqual(['c', 'hotels']);
  });

  it('createCollection: GET the index, then POST /indexes with fields by storage name and a profile per distance', async () => {
    indexes.delete('kmvs-c');
    await open().createCollection('c', Counter);
    expect(seen.map((s) => [s.method, s.path.split('?')[0]])).toEqual([
      ['GET', "/indexes('kmvs-c')"],
      ['POST', '/indexes'],
    ]);
    expect(seen[1]!.headers['api-key']).toBe('secret-key');
    expect(seen[1]!.json).toMatchObject({
      name: 'kmvs-c',
      fields: [
        { name: 'counter_id', type: 'Edm.String', key: true, filterable: true },
        { name: 'label', type: 'Edm.String', filterable: true },
        { name: 'v', type: 'Collection(Edm.Single)', searchable: true, dimensions: 2, vectorSearchProfile: 'kmvs-euclidean' },
      ],
      vectorSearch: {
        profiles: [{ name: 'kmvs-euclidean', algorithm: 'kmvs-hnsw-euclidean' }],
        algorithms: [{ name: 'kmvs-hnsw-euclidean', kind: 'hnsw', hnswParameters: { metric: 'euclidean' } }],
      },
    });
  });

  it('createCollection on an existing index checks it and creates nothing; a misfit is invalid_argument', async () => {
    await open().createCollection('c', Counter);
    expect(requests('/indexes').filter((s) => s.method === 'POST')).toHaveLength(0);
    indexes.set('kmvs-c', counterIndex(3));
    const error = await open()
      .createCollection('c', Counter)
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain('declares "v" with 3 dimensions');
  });

  it('a collection name with upper-case letters is invalid_argument (index names are lower case); nothing is sent', async () => {
    const error = await open()
      .collectionExists('Hotels')
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect(seen).toHaveLength(0);
  });
});

describe('records', () => {
  it('upsert: one search.index request of upload actions, the key encoded, every field by storage name', async () => {
    await open().upsert('hotels', Hotel, [hotel]);
    const [batch] = requests('/docs/search.index');
    expect(batch!.path.split('?')[0]).toBe("/indexes('kmvs-hotels')/docs/search.index");
    expect(batch!.json).toEqual({
      value: [
        {
          '@search.action': 'upload',
          hotelId: documentKeyOf('h1'),
          hotel_name: 'Sea View',
          rating: 4.5,
          rooms: 3,
          pets: true,
          opened: '2024-01-02T03:04:05.000Z',
          tags: ['pool'],
          floors: [1, 2],
          description: null,
          embedding: [1, 0, 0],
          dotVector: null,
          l2Vector: null,
        },
      ],
    });
  });

  it('upsert and delete on a missing index are collection_not_found', async () => {
    for (const write of [
      (d: AzureAiSearchVectorStoreDriver) => d.upsert('gone', Hotel, [hotel]),
      (d: AzureAiSearchVectorStoreDriver) => d.delete('gone', Hotel, ['h1']),
    ]) {
      const error = await write(open()).catch((e: unknown) => e);
      expect(isKmError(error, 'collection_not_found')).toBe(true);
    }
  });

  it('get: a search filtered by search.in on the key, top = the number of keys; a missing index reads nothing', async () => {
    searchPage = [{ '@search.score': 1, counter_id: '7', label: 'seven', v: [3, 4] }];
    const records = await open().get('c', Counter, [7, 8], true);
    const [search] = requests('/docs/search.post.search');
    expect(search!.json).toMatchObject({ search: '*', filter: "search.in(counter_id, '7|8', '|')", top: 2, select: 'counter_id,label,v' });
    expect(records).toEqual([{ counter_id: 7, label: 'seven', v: new Float32Array([3, 4]) }]);
    expect(await open().get('gone', Counter, [7], false)).toEqual([]);
  });

  it('delete: one search.index request of delete actions on the key field', async () => {
    await open().delete('c', Counter, [7]);
    expect(requests('/docs/search.index')[0]!.json).toEqual({ value: [{ '@search.action': 'delete', counter_id: '7' }] });
  });
});

describe('search', () => {
  const query = (overrides: Record<string, unknown> = {}) => ({
    vectorProperty: Hotel.vectors[0]!,
    vector: new Float32Array([1, 0, 0]),
    limit: 4,
    filter: undefined,
    includeVectors: false,
    ...overrides,
  });

  it('one vector query with the OData pre-filter; a cosine @search.score back as the cosine', async () => {
    searchPage = [{ '@search.score': 1 / (2 - 0.5), hotelId: documentKeyOf('h1'), hotel_name: 'Sea View', rating: 4.5 }];
    const results = await open().search('hotels', Hotel, query({ filter: { op: 'gte', property: property(Hotel, 'rating'), value: 4 } }));
    expect(requests('/docs/search.post.search')[0]!.json).toEqual({
      filter: 'rating ge 4',
      top: 4,
      select: 'hotelId,hotel_name,rating,rooms,pets,opened,tags,floors,description',
      vectorQueries: [{ kind: 'vector', vector: [1, 0, 0], k: 4, fields: 'embedding' }],
      vectorFilterMode: 'preFilter',
    });
    expect(results[0]![0]).toMatchObject({ hotelId: 'h1', hotel_name: 'Sea View', rating: 4.5, pets: null });
    expect(results[0]![1]).toBeCloseTo(0.5, 12);
  });

  it('a euclidean search selects the searched vector and scores each hit from it; it is not returned unless asked', async () => {
    searchPage = [{ '@search.score': 0.1, hotelId: documentKeyOf('h1'), l2Vector: [4, 4] }];
    const results = await open().search('hotels', Hotel, query({ vectorProperty: Hotel.vectors[2]!, vector: new Float32Array([1, 0]) }));
    expect((requests('/docs/search.post.search')[0]!.json as { select: string }).select.split(',').at(-1)).toBe('l2Vector');
    expect(results[0]![1]).toBeCloseTo(5, 6);
    expect(results[0]![0]).not.toHaveProperty('l2Vector');
  });

  it('a filter that matches nothing sends no search; a missing index returns nothing', async () => {
    expect(await open().search('hotels', Hotel, query({ filter: { op: 'or', nodes: [] } }))).toEqual([]);
    expect(requests('/docs/search.post.search')).toHaveLength(0);
    expect(await open().search('gone', Hotel, query())).toEqual([]);
  });
});

describe('query', () => {
  it('pages through the matches by key (orderBy key, key gt last), sorts on the order fields here, then reads the first by key', async () => {
    const page = (ids: number[], label: (id: number) => string | null) =>
      ids.map((id) => ({ '@search.score': 1, counter_id: String(id), label: label(id) }));
    // A full first page makes the driver ask for the next one after its last key.
    searchPages = [
      page(
        Array.from({ length: 1000 }, (_, i) => i + 1),
        (id) => (id === 5 ? null : `l${String(id).padStart(4, '0')}`),
      ),
      page([1001], () => 'zzz'),
      [
        { '@search.score': 1, counter_id: '1001', label: 'zzz' },
        { '@search.score': 1, counter_id: '1000', label: 'l1000' },
      ],
    ];
    const records = await open().query!('c', Counter, {
      filter: { op: 'ne', property: property(Counter, 'label'), value: 'x' },
      orderBy: [{ storageName: 'label', descending: true }],
      limit: 2,
      includeVectors: false,
    });
    const searches = requests('/docs/search.post.search').map((s) => s.json as Record<string, unknown>);
    expect(searches[0]).toEqual({ search: '*', filter: "label ne 'x'", orderby: 'counter_id asc', top: 1000, select: 'counter_id,label' });
    expect(searches[1]).toMatchObject({ filter: "(label ne 'x') and counter_id gt '1000'", orderby: 'counter_id asc' });
    expect(searches[2]).toMatchObject({ filter: "search.in(counter_id, '1001|1000', '|')", top: 2 });
    expect(records).toEqual([
      { counter_id: 1001, label: 'zzz' },
      { counter_id: 1000, label: 'l1000' },
    ]);
  });

  it('a missing index reads nothing; a filter that matches nothing sends nothing', async () => {
    const q = { filter: undefined, orderBy: [], limit: 5, includeVectors: false };
    expect(await open().query!('gone', Counter, q)).toEqual([]);
    seen.length = 0;
    expect(await open().query!('c', Counter, { ...q, filter: { op: 'or', nodes: [] } })).toEqual([]);
    expect(seen).toHaveLength(0);
  });
});

describe('queryPages', () => {
  const hotels = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({ '@search.score': 1, hotelId: documentKeyOf(`h${String(from + i).padStart(5, '0')}`) }));

  it('by key: each page of 1000 is yielded before the next is asked for, with the requests query sends', async () => {
    searchPages = [hotels(0, 1000), hotels(1000, 1000), hotels(2000, 3)];
    const q = {
      filter: undefined,
      orderBy: [{ storageName: 'hotelId', descending: false }],
      limit: Number.MAX_SAFE_INTEGER,
      includeVectors: false,
    };
    const sizes: number[] = [];
    for await (const page of open().queryPages('hotels', Hotel, q)) {
      expect(requests('/docs/search.post.search')).toHaveLength(sizes.length + 1);
      sizes.push(page.length);
    }
    expect(sizes).toEqual([1000, 1000, 3]);
    const searches = requests('/docs/search.post.search').map((s) => s.json as Record<string, unknown>);
    expect(searches.map((s) => [s.top, s.filter])).toEqual([
      [1000, undefined],
      [1000, `hotelId gt '${documentKeyOf('h00999')}'`],
      [1000, `hotelId gt '${documentKeyOf('h01999')}'`],
    ]);
    seen.length = 0;
    searchPages = [hotels(0, 1000), hotels(1000, 1000), hotels(2000, 3)];
    expect(await open().query!('hotels', Hotel, q)).toHaveLength(2003);
    expect(requests('/docs/search.post.search').map((s) => (s.json as Record<string, unknown>).filter)).toEqual(
      searches.map((s) => s.filter),
    );
  });

  it('a limit cuts the last page; a caller that stops early sends no more requests', async () => {
    searchPages = [hotels(0, 1000), hotels(1000, 500)];
    const q = { filter: undefined, orderBy: [{ storageName: 'hotelId', descending: false }], limit: 1500, includeVectors: false };
    const pages: number[] = [];
    for await (const page of open().queryPages('hotels', Hotel, q)) pages.push(page.length);
    expect(pages).toEqual([1000, 500]);
    expect(requests('/docs/search.post.search').map((s) => (s.json as Record<string, unknown>).top)).toEqual([1000, 500]);
    seen.length = 0;
    searchPages = [hotels(0, 1000), hotels(1000, 500)];
    for await (const _ of open().queryPages('hotels', Hotel, q)) break;
    expect(requests('/docs/search.post.search')).toHaveLength(1);
  });
});

describe('search limit', () => {
  it('a vector search asks for the whole limit (top and k), past 1000; the SDK reads on through the pages the service returns', async () => {
    const hits = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ '@search.score': 1 - (from + i) / 10_000, hotelId: documentKeyOf(`h${from + i}`) }));
    answerNext = [
      {
        json: {
          value: hits(0, 1000),
          '@odata.nextLink': `${recorder.url}/indexes('kmvs-hotels')/docs/search.post.search?api-version=2024-07-01`,
          '@search.nextPageParameters': {
            top: 1500,
            skip: 1000,
            vectorQueries: [{ kind: 'vector', vector: [1, 0, 0], k: 2500, fields: 'embedding' }],
          },
        },
      },
      { json: { value: hits(1000, 1500) } },
    ];
    const results = await open().search('hotels', Hotel, {
      vectorProperty: Hotel.vectors[0]!,
      vector: new Float32Array([1, 0, 0]),
      limit: 2500,
      filter: undefined,
      includeVectors: false,
    });
    const searches = requests('/docs/search.post.search').map((s) => s.json as Record<string, unknown>);
    expect(searches[0]).toMatchObject({ top: 2500, vectorQueries: [{ k: 2500 }] });
    expect(searches).toHaveLength(2);
    expect(searches[1]).toMatchObject({ skip: 1000 });
    expect(results).toHaveLength(2500);
    expect(results[2499]![0]).toMatchObject({ hotelId: 'h2499' });
  });
});

describe('keys too long to store', () => {
  it('get and delete leave them out (no record can have them); upsert refuses them with invalid_argument', async () => {
    const long = 'x'.repeat(321);
    expect(await open().get('hotels', Hotel, [long], false)).toEqual([]);
    await open().delete('hotels', Hotel, [long]);
    expect(requests('/docs/')).toHaveLength(0);
    const error = await open()
      .upsert('hotels', Hotel, [{ ...hotel, hotelId: long }])
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
  });
});
