import { startRequestRecorder, type RecordedRequest, type RequestRecorder } from '@km/conformance';
import { defineRecord, isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pointIdOf, QdrantVectorStore } from '../src/index.js';

// A recorder that answers like Qdrant's REST API, to check the requests the typed store sends
// (paths and bodies) against the API reference. Shapes only: whether the store works is proven
// by describeVectorStore against a real Qdrant (tests-integration/test/vector-store-qdrant.test.ts).
let recorder: RequestRecorder;
let url: string;
let seen: RecordedRequest[];
/** The `vectors` of the collection the recorder pretends exists, or undefined for none. */
let existing: unknown;

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string', filterable: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true },
    opened: { type: 'date', filterable: true, optional: true },
    description: { type: 'string' },
  },
  vectors: {
    embedding: { dimensions: 2 },
    photo: { dimensions: 2, distance: 'euclidean', optional: true, storageName: 'photo_vec' },
  },
});

function answer(method: string, path: string, body: unknown): { status: number; result: unknown } {
  const ok = (result: unknown) => ({ status: 200, result });
  const missing = { status: 404, result: null };
  if (method === 'GET' && path === '/collections') {
    return ok({ collections: [{ name: 'app-hotels' }, { name: 'app-Rooms_2' }, { name: 'other' }, { name: 'app-' }] });
  }
  if (method === 'GET' && path.endsWith('/exists')) return ok({ exists: existing !== undefined });
  if (method === 'GET' && /^\/collections\/[^/]+$/.test(path)) {
    return existing === undefined ? missing : ok({ config: { params: { vectors: existing } } });
  }
  if (existing === undefined && path.includes('/points')) return missing;
  if (path.endsWith('/points/query')) {
    const payload = { hotelId: 'h1', hotel_name: 'Sea View', rating: 4.5, description: 'd', opened: '2024-01-02T00:00:00.000Z' };
    return ok({ points: [{ id: pointIdOf('h1'), version: 1, score: 0.25, payload }] });
  }
  if (path.endsWith('/points/scroll')) {
    // Two pages in point-id order, not in the order asked for.
    const point = (key: string, rating?: number) => ({
      id: pointIdOf(key),
      payload: { hotelId: key, hotel_name: key, description: 'd', ...(rating === undefined ? {} : { rating }) },
    });
    const secondPage = seen.filter((s) => s.path.endsWith('/points/scroll')).length > 1;
    return secondPage
      ? ok({ points: [point('h4', 3), point('h2')], next_page_offset: null })
      : ok({ points: [point('h3', 4), point('h1', 3)], next_page_offset: pointIdOf('h4') });
  }
  if (method === 'POST' && path.endsWith('/points') && seen.some((s) => s.path.endsWith('/points/scroll'))) {
    // The second step of a query with a limit: the points the scroll chose, whole.
    const ratings: Record<string, number> = { h1: 3, h3: 4, h4: 3 };
    const keys = Object.keys(ratings).filter((k) => (body as { ids: string[] }).ids.includes(pointIdOf(k)));
    return ok(keys.map((k) => ({ id: pointIdOf(k), payload: { hotelId: k, hotel_name: k, description: 'd', rating: ratings[k] } })));
  }
  if (method === 'POST' && path.endsWith('/points')) {
    return ok([{ id: pointIdOf('h1'), payload: { hotelId: 'h1', hotel_name: 'Sea View', rating: 4.5, description: 'd' } }]);
  }
  return ok(true);
}

beforeAll(async () => {
  recorder = await startRequestRecorder(({ method, path, json }) => {
    const { status, result } = answer(method, new URL(path, 'http://x').pathname, json);
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
  existing = undefined;
});

const store = () => new QdrantVectorStore({ url, collectionPrefix: 'app-' });
const HOTEL_VECTORS = { embedding: { size: 2, distance: 'Cosine' }, photo_vec: { size: 2, distance: 'Euclid' } };

describe('Qdrant typed-store requests', () => {
  it('ensureExists: a collection with a named vector per property and distance, then a payload index per filterable property', async () => {
    await store().getCollection('hotels', Hotel).ensureExists();
    expect(seen.find((s) => s.method === 'PUT' && s.path === '/collections/app-hotels')?.json).toEqual({ vectors: HOTEL_VECTORS });
    const indexes = seen.filter((s) => s.path.startsWith('/collections/app-hotels/index'));
    expect(indexes.map((s) => [s.path, s.json])).toEqual([
      ['/collections/app-hotels/index?wait=true', { field_name: 'hotel_name', field_schema: 'keyword' }],
      ['/collections/app-hotels/index?wait=true', { field_name: 'rating', field_schema: 'float' }],
      ['/collections/app-hotels/index?wait=true', { field_name: 'opened', field_schema: 'datetime' }],
    ]);
  });

  it('ensureExists on an existing collection checks its named vectors and changes nothing', async () => {
    existing = HOTEL_VECTORS;
    await store().getCollection('hotels', Hotel).ensureExists();
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('ensureExists on an existing collection without a mapped vector: invalid_argument naming it, nothing created', async () => {
    existing = { embedding: { size: 2, distance: 'Cosine' } };
    const error = await store()
      .getCollection('hotels', Hotel)
      .ensureExists()
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain('"photo_vec"');
    existing = { ...HOTEL_VECTORS, embedding: { size: 3, distance: 'Cosine' } };
    await expect(store().getCollection('hotels', Hotel).ensureExists()).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'vector_size_mismatch'),
    );
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('ensureExists refuses a filterable field Qdrant paths cannot name (holding ") before creating anything', async () => {
    const Odd = defineRecord({
      key: 'id',
      data: { q: { type: 'string', filterable: true, storageName: 'a"b' } },
      vectors: { v: { dimensions: 2 } },
    });
    await expect(store().getCollection('odd', Odd).ensureExists()).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
    expect(seen.some((s) => s.method === 'PUT')).toBe(false);
  });

  it('upsert: one PUT of points with derived ids, named vectors and the payload by storage name, wait=true', async () => {
    existing = HOTEL_VECTORS;
    const keys = await store()
      .getCollection('hotels', Hotel)
      .upsert([{ hotelId: 'h1', name: 'Sea View', rating: 4.5, description: 'd', embedding: [1, 0] }]);
    expect(keys).toEqual(['h1']);
    const put = seen.find((s) => s.method === 'PUT' && s.path.startsWith('/collections/app-hotels/points'));
    expect(put?.path).toBe('/collections/app-hotels/points?wait=true');
    expect(put?.json).toEqual({
      points: [
        {
          id: pointIdOf('h1'),
          vector: { embedding: [1, 0] },
          payload: { hotelId: 'h1', hotel_name: 'Sea View', rating: 4.5, description: 'd', __km_vectors: { embedding: [1, 0] } },
        },
      ],
    });
  });

  it('writes to a missing collection throw collection_not_found; reads return nothing', async () => {
    const hotels = store().getCollection('hotels', Hotel);
    await expect(hotels.upsert({ hotelId: 'h1', name: 'n', rating: 1, description: 'd', embedding: [1, 0] })).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'collection_not_found'),
    );
    await expect(hotels.delete('h1')).rejects.toSatisfy((e: unknown) => isKmError(e, 'collection_not_found'));
    expect(await hotels.get('h1')).toBeUndefined();
    expect(await hotels.search([1, 0], { vectorProperty: 'embedding' })).toEqual([]);
  });

  it('search: one query on the named vector, the filter inside, limit top + skip, the payload without vector copies', async () => {
    existing = HOTEL_VECTORS;
    const results = await store()
      .getCollection('hotels', Hotel)
      .search([3, 4], { vectorProperty: 'photo', top: 2, skip: 1, filter: { rating: { gte: 4 } } });
    expect(seen.find((s) => s.path.endsWith('/points/query'))?.json).toEqual({
      query: [3, 4],
      using: 'photo_vec',
      filter: { must: [{ key: 'rating', range: { gte: 4 } }] },
      limit: 3,
      with_payload: { exclude: ['__km_vectors'] },
      with_vector: false,
      params: { exact: false },
    });
    expect(results).toEqual([]); // one hit, skipped
  });

  it('search returns records by property name with Qdrant score as is (Euclid: the distance)', async () => {
    existing = HOTEL_VECTORS;
    const results = await store().getCollection('hotels', Hotel).search([3, 4], { vectorProperty: 'photo' });
    expect(results).toEqual([
      {
        record: { hotelId: 'h1', name: 'Sea View', rating: 4.5, description: 'd', opened: new Date('2024-01-02T00:00:00.000Z') },
        score: 0.25,
      },
    ]);
  });

  it('get retrieves by point id, asking for the named vectors only when wanted', async () => {
    existing = HOTEL_VECTORS;
    await store().getCollection('hotels', Hotel).get('h1', { includeVectors: true });
    expect(seen.find((s) => s.method === 'POST' && s.path === '/collections/app-hotels/points')?.json).toEqual({
      ids: [pointIdOf('h1')],
      with_payload: true,
      with_vector: ['embedding', 'photo_vec'],
    });
  });

  it('query with a limit scrolls the key and ordered fields of every matching point, orders them (missing values last, ties by key), then retrieves the first', async () => {
    existing = HOTEL_VECTORS;
    const Listed = defineRecord({
      key: 'hotelId',
      data: {
        name: { type: 'string', filterable: true, storageName: 'hotel_name' },
        rating: { type: 'number', filterable: true, optional: true },
        description: { type: 'string' },
      },
      vectors: { embedding: { dimensions: 2 } },
    });
    const records = await store()
      .getCollection('hotels', Listed)
      .query({ filter: { name: { ne: 'x' } }, orderBy: [{ property: 'rating', descending: true }], top: 3 });
    const scrolls = seen.filter((s) => s.path.endsWith('/points/scroll'));
    expect(scrolls.map((s) => s.json)).toEqual([
      {
        filter: { must_not: [{ key: 'hotel_name', match: { value: 'x' } }] },
        limit: 256,
        with_payload: ['hotelId', 'rating'],
        with_vector: false,
      },
      {
        filter: { must_not: [{ key: 'hotel_name', match: { value: 'x' } }] },
        limit: 256,
        with_payload: ['hotelId', 'rating'],
        with_vector: false,
        offset: pointIdOf('h4'),
      },
    ]);
    expect(seen.find((s) => s.method === 'POST' && s.path === '/collections/app-hotels/points')?.json).toEqual({
      ids: ['h3', 'h1', 'h4'].map(pointIdOf),
      with_payload: { exclude: ['__km_vectors'] },
      with_vector: false,
    });
    expect(records.map((r) => [r.hotelId, r.rating])).toEqual([
      ['h3', 4],
      ['h1', 3],
      ['h4', 3],
    ]);
  });

  it('listCollections: the collections under the prefix whose rest is a collection name', async () => {
    expect(await store().listCollections()).toEqual(['Rooms_2', 'hotels']);
  });
});
