import { startRequestRecorder, type RecordedRequest, type RequestRecorder } from '@km/conformance';
import { defineRecord, isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ElasticsearchVectorStore, scoreToElasticsearch, vectorIndexMappings } from '../src/index.js';

// A recorder that answers like Elasticsearch's REST API, to check the requests the typed store
// sends against the API reference. Shapes only: describeVectorStore against a real Elasticsearch
// (tests-integration/test/vector-store-elasticsearch.test.ts) proves the store works.
let recorder: RequestRecorder;
let node: string;
let seen: RecordedRequest[];
/** The mapping of the index the recorder pretends exists, or undefined for none. */
let mapping: unknown;

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string', filterable: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true },
    opened: { type: 'date', optional: true },
  },
  vectors: { embedding: { dimensions: 2 }, photo: { dimensions: 2, distance: 'euclidean', optional: true, storageName: 'photo_vec' } },
});

const notFound = { status: 404, json: { error: { type: 'index_not_found_exception', reason: 'no such index [x]' }, status: 404 } };

function answer(method: string, path: string, body: string): { status: number; json: unknown } {
  if (path.startsWith('/_cat/indices')) {
    return { status: 200, json: [{ index: 'app-hotels' }, { index: 'app-r~ooms' }, { index: 'app-a.b' }, { index: 'other' }] };
  }
  if (path === '/_bulk') {
    // Elasticsearch creates no index for a delete: each delete on a missing one fails alone.
    const deletes = body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { delete?: { _index: string; _id: string } })
      .filter((line) => line.delete);
    if (mapping === undefined && deletes.length > 0) {
      const error = { type: 'index_not_found_exception', reason: 'no such index [app-hotels]', index: 'app-hotels' };
      return { status: 200, json: { errors: true, took: 1, items: deletes.map((d) => ({ delete: { ...d.delete, status: 404, error } })) } };
    }
    return { status: 200, json: { errors: false, took: 1, items: [] } };
  }
  if (method === 'HEAD') return mapping === undefined ? { status: 404, json: {} } : { status: 200, json: {} };
  if (path.endsWith('/_mapping')) return mapping === undefined ? notFound : { status: 200, json: { 'app-hotels': { mappings: mapping } } };
  if (path.endsWith('/_mget')) {
    if (mapping === undefined) return notFound;
    const source = { hotelId: 'h1', hotel_name: 'Sea View', rating: 4.5, embedding: [0.5, 0.25] };
    return {
      status: 200,
      json: {
        docs: [
          { _index: 'app-hotels', _id: 'h1', found: true, _source: source },
          { _index: 'app-hotels', _id: 'h9', found: false },
        ],
      },
    };
  }
  if (path.endsWith('/_search')) {
    const request = JSON.parse(body) as { knn?: { field: string } };
    const score = request.knn?.field === 'photo_vec' ? scoreToElasticsearch('euclidean', 2) : scoreToElasticsearch('cosine', 0.6);
    const source = { hotelId: 'h1', hotel_name: 'Sea View', rating: 4.5, opened: '2024-01-02T00:00:00.000Z' };
    return { status: 200, json: { hits: { hits: [{ _index: 'app-hotels', _id: 'h1', _score: score, _source: source }] } } };
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
  mapping = undefined;
});

const store = () => new ElasticsearchVectorStore({ node, indexPrefix: 'app-', maxRetries: 0 });
const bulkLines = (request: RecordedRequest | undefined) =>
  request?.body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);

describe('Elasticsearch typed-store requests', () => {
  it('ensureExists creates the index with the definition mapping', async () => {
    await store().getCollection('hotels', Hotel).ensureExists();
    const create = seen.find((s) => s.method === 'PUT' && s.path.startsWith('/app-hotels'));
    expect(create?.json).toEqual({ mappings: vectorIndexMappings(Hotel, undefined), settings: {} });
  });

  it('ensureExists on an existing index checks its mapping: a missing field is invalid_argument, nothing is created', async () => {
    const { properties } = vectorIndexMappings(Hotel, undefined);
    const { rating: _, ...withoutRating } = properties!;
    mapping = { properties: withoutRating };
    const error = await store()
      .getCollection('hotels', Hotel)
      .ensureExists()
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument') && (error as Error).message.includes('"rating"')).toBe(true);
    mapping = { properties };
    await store().getCollection('hotels', Hotel).ensureExists();
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('upsert: bulk index actions with the key as _id, documents by storage name, refresh=wait_for', async () => {
    mapping = vectorIndexMappings(Hotel, undefined);
    await store()
      .getCollection('hotels', Hotel)
      .upsert({ hotelId: 'h1', name: 'Sea View', rating: 4.5, opened: new Date('2024-01-02T00:00:00Z'), embedding: [1, 0] });
    const bulk = seen.find((s) => s.path.startsWith('/_bulk'));
    expect(new URL(bulk!.path, 'http://x').searchParams.get('refresh')).toBe('wait_for');
    expect(bulkLines(bulk)).toEqual([
      { index: { _index: 'app-hotels', _id: 'h1' } },
      { hotelId: 'h1', hotel_name: 'Sea View', rating: 4.5, opened: '2024-01-02T00:00:00.000Z', embedding: [1, 0] },
    ]);
  });

  it('writes to a missing index throw collection_not_found before any bulk request (which would create it); reads return nothing', async () => {
    const hotels = store().getCollection('hotels', Hotel);
    await expect(hotels.upsert({ hotelId: 'h1', name: 'n', rating: 1, embedding: [1, 0] })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'collection_not_found'),
    );
    expect(seen.some((s) => s.path.startsWith('/_bulk'))).toBe(false);
    expect(await hotels.get('h1')).toBeUndefined();
  });

  it('delete on a missing index: one bulk request, no existence check (a delete creates no index); its index_not_found_exception is collection_not_found', async () => {
    await expect(store().getCollection('hotels', Hotel).delete(['h1', 'h2'])).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'collection_not_found'),
    );
    expect(seen.map((s) => `${s.method} ${new URL(s.path, 'http://x').pathname}`)).toEqual(['POST /_bulk']);
  });

  it('delete on an existing index: the bulk request alone', async () => {
    mapping = vectorIndexMappings(Hotel, undefined);
    await store().getCollection('hotels', Hotel).delete('h1');
    expect(seen.map((s) => `${s.method} ${new URL(s.path, 'http://x').pathname}`)).toEqual(['POST /_bulk']);
  });

  it('delete: bulk delete actions by _id', async () => {
    mapping = vectorIndexMappings(Hotel, undefined);
    await store().getCollection('hotels', Hotel).delete(['h1', 'h2']);
    expect(bulkLines(seen.find((s) => s.path.startsWith('/_bulk')))).toEqual([
      { delete: { _index: 'app-hotels', _id: 'h1' } },
      { delete: { _index: 'app-hotels', _id: 'h2' } },
    ]);
  });

  it('search: a kNN query on the vector field with the filter inside knn.filter, k = top + skip, vectors left out of _source', async () => {
    mapping = vectorIndexMappings(Hotel, undefined);
    const results = await store()
      .getCollection('hotels', Hotel)
      .search([0.6, 0.8], { vectorProperty: 'embedding', top: 2, skip: 1, filter: { rating: { gte: 4 } } });
    const search = seen.find((s) => s.path.startsWith('/app-hotels/_search'));
    expect(search?.json).toEqual({
      knn: {
        field: 'embedding',
        query_vector: [0.6000000238418579, 0.800000011920929],
        k: 3,
        num_candidates: 100,
        filter: { range: { rating: { gte: 4 } } },
      },
      size: 3,
      _source: { excludes: ['embedding', 'photo_vec'] },
      track_total_hits: false,
    });
    expect(results).toEqual([]); // one hit, skipped
  });

  it('search scores are converted back to the convention: the cosine, the Euclidean distance', async () => {
    mapping = vectorIndexMappings(Hotel, undefined);
    const hotels = store().getCollection('hotels', Hotel);
    const [cosine] = await hotels.search([1, 0], { vectorProperty: 'embedding' });
    expect(cosine?.score).toBeCloseTo(0.6, 12);
    expect(cosine?.record).toEqual({ hotelId: 'h1', name: 'Sea View', rating: 4.5, opened: new Date('2024-01-02T00:00:00.000Z') });
    const [euclidean] = await hotels.search([1, 0], { vectorProperty: 'photo' });
    expect(euclidean?.score).toBeCloseTo(2, 12);
  });

  it('get: one mget by _id; found documents only, vectors as Float32Array when asked for', async () => {
    mapping = vectorIndexMappings(Hotel, undefined);
    const got = await store().getCollection('hotels', Hotel).getMany(['h1', 'h9'], { includeVectors: true });
    const mget = seen.find((s) => s.path.startsWith('/app-hotels/_mget'));
    expect(mget?.json).toEqual({ ids: ['h1', 'h9'] });
    expect(got).toEqual([
      { hotelId: 'h1', name: 'Sea View', rating: 4.5, opened: null, embedding: Float32Array.from([0.5, 0.25]), photo: null },
    ]);
  });

  it('query: a search with the filter as query, sorted by the fields (missing last) then by the key, size top + skip', async () => {
    mapping = vectorIndexMappings(Hotel, undefined);
    const records = await store()
      .getCollection('hotels', Hotel)
      .query({ filter: { name: { in: ['Sea View'] } }, orderBy: [{ property: 'rating', descending: true }], top: 2, skip: 1 });
    expect(seen.find((s) => s.path.startsWith('/app-hotels/_search'))?.json).toEqual({
      query: { terms: { hotel_name: ['Sea View'] } },
      sort: [{ rating: { order: 'desc', missing: '_last', unmapped_type: 'keyword' } }, { hotelId: 'asc' }],
      size: 3,
      _source: { excludes: ['embedding', 'photo_vec'] },
      track_total_hits: false,
    });
    expect(records).toEqual([]); // one hit, skipped
  });

  it('listCollections: indexes under the prefix decoded to collection names, others left out', async () => {
    expect(await store().listCollections()).toEqual(['Rooms', 'hotels']);
  });
});
