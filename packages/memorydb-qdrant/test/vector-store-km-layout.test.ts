import { defineRecord, isKmError } from '@km/core';
import { KmRecordLayout } from '@km/core/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pointIdOf, QdrantVectorStoreDriver } from '../src/index.js';
import { fromVectorPoint, toVectorPoint } from '../src/vector-store/qdrant-vector-points.js';
import type { QdrantPointLayout } from '../src/vector-store/qdrant-vector-store-options.js';
import { startFakeQdrant } from './fixtures/fake-qdrant.js';

// The typed driver's layout knobs that keep km 0.x's memory-DB collections as they are (an
// unnamed vector, its length in `norm`, the payload as a JSON object), and its vectorDimensions,
// against the in-memory model of Qdrant's REST API.
const KM: QdrantPointLayout = {
  unnamedVector: 'embedding',
  vectorNorms: { embedding: 'norm' },
  jsonObjects: ['payload'],
  listsEveryCollection: true,
};
const Km = defineRecord({
  key: 'id',
  data: { tags: { type: 'string[]', filterable: true }, payload: { type: 'string' } },
  vectors: { embedding: { dimensions: 3, distance: 'cosine' } },
});
const Named = defineRecord({
  key: 'id',
  data: { title: { type: 'string' } },
  vectors: { text: { dimensions: 2 }, image: { dimensions: 4, distance: 'dot' } },
});

let server: Awaited<ReturnType<typeof startFakeQdrant>>;
beforeAll(async () => {
  server = await startFakeQdrant();
});
afterAll(() => server.recorder.close());
beforeEach(() => {
  for (const name of Object.keys(server.state)) delete server.state[name];
  server.requests.length = 0;
});

describe('points in KM layout', () => {
  it('the unnamed vector is the point vector, its length in norm, the JSON text a native object, no vector copy', () => {
    const point = toVectorPoint(
      Km,
      { id: 'a', tags: ['k:v', 'flag'], payload: '{"text":"é","n":{"x":[1,null]}}', embedding: Float32Array.from([3, 0, 4]) },
      KM,
    );
    expect(point).toEqual({
      id: pointIdOf('a'),
      vector: [3, 0, 4],
      payload: { id: 'a', tags: ['k:v', 'flag'], payload: { text: 'é', n: { x: [1, null] } }, norm: 5 },
    });
  });

  it('reads scale the stored unit vector back by norm (1 without it), give the object back as JSON text, a non-object as null', () => {
    const point = { id: pointIdOf('a'), vector: [0.6, 0, 0.8], payload: { id: 'a', tags: ['k:v'], payload: { text: 'é' }, norm: 5 } };
    expect(fromVectorPoint(Km, point, true, KM)).toEqual({
      id: 'a',
      tags: ['k:v'],
      payload: '{"text":"é"}',
      embedding: Float32Array.from([3, 0, 4]),
    });
    const bare = { id: pointIdOf('b'), vector: [0.6, 0, 0.8], payload: { id: 'b', payload: 'not an object' } };
    expect(fromVectorPoint(Km, bare, true, KM)).toEqual({
      id: 'b',
      tags: null,
      payload: null,
      embedding: Float32Array.from([0.6, 0, 0.8]),
    });
    expect(fromVectorPoint(Km, { ...bare, payload: { id: 'b', payload: [1] } }, false, KM)).toEqual({ id: 'b', tags: null, payload: null });
  });

  it('a point without km fields (written by another tool) still gives a KM record', () => {
    const layout = new KmRecordLayout({ prefix: '', storageNames: { content: false } });
    const row = fromVectorPoint(Km, { id: 7, payload: { payload: 'not an object' } }, false, KM);
    expect(layout.fromStorage(row)).toEqual({ id: '7', vector: new Float32Array(0), tags: {}, payload: {} });
  });

  it('a zero vector is written with norm 0 and reads back as zeros', () => {
    const point = toVectorPoint(Km, { id: 'z', tags: [], payload: '{}', embedding: new Float32Array(3) }, KM);
    expect(point.payload.norm).toBe(0);
    expect(fromVectorPoint(Km, { ...point, vector: [0, 0, 0] }, true, KM).embedding).toEqual(new Float32Array(3));
  });
});

describe('QdrantVectorStoreDriver with KM layout', () => {
  const driver = () => new QdrantVectorStoreDriver({ url: server.url, collectionPrefix: 'p-' }, KM);

  it('declares zero vectors', () => {
    expect(new QdrantVectorStoreDriver({ url: server.url }).zeroVectors).toBe(true);
  });

  it('createCollection: one unnamed cosine vector, a keyword index on tags; upsert, search without using, read back exactly', async () => {
    const d = driver();
    await d.createCollection('km-docs', Km);
    expect(server.state['p-km-docs']).toMatchObject({
      vectors: { size: 3, distance: 'Cosine' },
      payloadIndexes: [{ field_name: 'tags', field_schema: 'keyword' }],
    });
    await d.upsert('km-docs', Km, [{ id: 'a', tags: ['k:v'], payload: '{"text":"x"}', embedding: Float32Array.from([3, 0, 4]) }]);
    expect(server.state['p-km-docs']!.points[0]).toEqual({
      id: pointIdOf('a'),
      vector: [0.6000000238418579, 0, 0.800000011920929],
      payload: { id: 'a', tags: ['k:v'], payload: { text: 'x' }, norm: 5 },
    });
    server.requests.length = 0;
    const found = await d.search('km-docs', Km, {
      vectorProperty: Km.vectors[0]!,
      vector: Float32Array.from([1, 0, 0]),
      limit: 5,
      filter: undefined,
      includeVectors: true,
    });
    expect(server.seen()[0]!.json).toEqual({ query: [1, 0, 0], limit: 5, with_payload: true, with_vector: true, params: { exact: false } });
    expect(found.map(([r, s]) => [r.id, r.payload, Array.from(r.embedding as Float32Array), s])).toEqual([
      ['a', '{"text":"x"}', [3, 0, 4], expect.closeTo(0.6, 6)],
    ]);
    await d.createCollection('km-docs', Km); // exists: checked, nothing sent but the read
    await expect(d.createCollection('km-docs', defineRecord({ key: 'id', vectors: { embedding: { dimensions: 4 } } }))).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'vector_size_mismatch'),
    );
  });

  it('vectorDimensions reads the size back: the unnamed vector, a named one, undefined when missing', async () => {
    const d = driver();
    expect(await d.vectorDimensions('km-docs', 'embedding')).toBeUndefined();
    await d.createCollection('km-docs', Km);
    expect(await d.vectorDimensions('km-docs', 'embedding')).toBe(3);
    const typed = new QdrantVectorStoreDriver({ url: server.url, collectionPrefix: 'p-' });
    await typed.createCollection('named', Named);
    expect(await typed.vectorDimensions('named', 'image')).toBe(4);
    expect(await typed.vectorDimensions('named', 'text')).toBe(2);
    expect(await typed.vectorDimensions('named', 'other')).toBeUndefined();
    expect(await typed.vectorDimensions('km-docs', 'embedding')).toBeUndefined();
    // Named vectors where the layout wants the unnamed one: km 0.x's invalid_argument.
    await expect(d.vectorDimensions('named', 'embedding')).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
  });

  it('a query with a limit scrolls the keys only, then retrieves the first points whole', async () => {
    const d = driver();
    await d.createCollection('km-docs', Km);
    const rows = ['c', 'a', 'b'].map((id, i) => ({ id, tags: [], payload: `{"i":${i}}`, embedding: Float32Array.from([1, i, 0]) }));
    await d.upsert('km-docs', Km, rows);
    server.requests.length = 0;
    const got = await d.query('km-docs', Km, {
      filter: undefined,
      orderBy: [{ storageName: 'id', descending: false }],
      limit: 2,
      includeVectors: true,
    });
    expect(got.map((r) => [r.id, r.payload])).toEqual([
      ['a', '{"i":1}'],
      ['b', '{"i":2}'],
    ]);
    expect(server.seen().map((r) => r.json)).toEqual([
      { limit: 256, with_payload: ['id'], with_vector: false },
      { ids: [pointIdOf('a'), pointIdOf('b')], with_payload: true, with_vector: true },
    ]);
  });

  it('listsEveryCollection: every name under the prefix, as the layout wants to pick its indexes', async () => {
    server.state['p--dash'] = { vectors: { size: 1, distance: 'Cosine' }, payloadIndexes: [], points: [] };
    server.state['p-ok'] = { vectors: { size: 1, distance: 'Cosine' }, payloadIndexes: [], points: [] };
    server.state.other = { vectors: { size: 1, distance: 'Cosine' }, payloadIndexes: [], points: [] };
    expect((await driver().listCollections()).sort()).toEqual(['-dash', 'ok']);
    expect(await new QdrantVectorStoreDriver({ url: server.url, collectionPrefix: 'p-' }).listCollections()).toEqual(['ok']);
  });

  it('a definition with the unnamed vector and another one is refused', async () => {
    const Two = defineRecord({ key: 'id', vectors: { embedding: { dimensions: 2 }, other: { dimensions: 2 } } });
    await expect(driver().createCollection('two', Two)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
  });
});
