import { defineRecord, isKmError } from '@km/core';
import { compareRecordIds, compileFilter, type StorageRecord, type VectorStoreDriver } from '@km/core/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ElasticsearchVectorStore, ElasticsearchVectorStoreDriver, lexicalScore } from '../src/index.js';
import { compareUtf8, type FakeElasticsearch, startFakeElasticsearch } from './fixtures/fake-elasticsearch.js';

// The typed driver's capabilities that KM's memory layout needs, against the in-memory fake
// Elasticsearch (test/fixtures/fake-elasticsearch.ts): request shapes and the driver's own logic.
let es: FakeElasticsearch;
beforeAll(async () => {
  es = await startFakeElasticsearch();
});
afterAll(() => es.close());
beforeEach(() => {
  es.indexes.clear();
  es.requests.length = 0;
});

const Note = defineRecord({
  key: 'id',
  data: {
    tags: { type: 'string[]', filterable: true },
    payload: { type: 'string' },
    content: { type: 'string', fullText: true },
  },
  vectors: { embedding: { dimensions: 2, distance: 'cosine' } },
});
const Page = defineRecord({
  key: 'id',
  data: { title: { type: 'string', fullText: true, filterable: true } },
  vectors: { embedding: { dimensions: 2 } },
});
const KM_STORAGE = {
  jsonFields: ['payload'],
  textFields: ['content'],
  unreadFields: ['content'],
  plainIndexNames: true,
  hashedIds: true,
} as const;

const driver = (storage = {}, prefix = 'km-') =>
  new ElasticsearchVectorStoreDriver({ node: es.url, maxRetries: 0, indexPrefix: prefix, storage });
const searches = () => es.requests.filter((r) => r.path.includes('/_search')).map((r) => r.json as Record<string, unknown>);
const note = (id: string, text = id): StorageRecord => ({
  id,
  tags: ['user:a'],
  payload: JSON.stringify({ text, nested: { list: [1, 'é', null] } }),
  content: text,
  embedding: Float32Array.from([1, 0]),
});

describe('vectorDimensions', () => {
  it("reads the dense_vector's dims from the mapping; undefined for a missing index or field", async () => {
    const d = driver();
    expect(await d.vectorDimensions('notes', 'embedding')).toBeUndefined();
    await d.createCollection('notes', Note);
    expect(await d.vectorDimensions('notes', 'embedding')).toBe(2);
    expect(await d.vectorDimensions('notes', 'vec')).toBeUndefined();
    expect(es.requests.at(-1)).toMatchObject({ method: 'GET', path: '/km-notes/_mapping' });
  });

  it('a field that is no dense_vector of known size is invalid_argument', async () => {
    es.indexes.set('km-odd', { mappings: { properties: { embedding: { type: 'keyword' } } }, docs: new Map() });
    await expect(driver().vectorDimensions('odd', 'embedding')).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
  });
});

describe('lexicalSearch', () => {
  it('declares lexical search, not zero vectors (a zero vector has no cosine)', () => {
    const store = new ElasticsearchVectorStore({ node: es.url });
    expect(store.capabilities.lexicalSearch).toBe(true);
    expect((driver() as VectorStoreDriver).zeroVectors).toBeUndefined();
  });

  it('a match query on a text-only field (KM content), the filter as a bool filter, BM25 mapped to [0, 1), key order for ties', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    await d.upsert('notes', Note, [note('b', 'storm storm harbour'), note('a', 'storm'), note('c', 'calm')]);
    es.requests.length = 0;
    const content = Note.data.find((p) => p.name === 'content')!;
    const found = await d.lexicalSearch('notes', Note, {
      property: content,
      text: 'storm harbour',
      filter: compileFilter(Note, { tags: { contains: 'user:a' } }),
      limit: 5,
      includeVectors: false,
    });
    expect(found.map(([r, s]) => [r.id, s])).toEqual([
      ['b', lexicalScore(2)],
      ['a', lexicalScore(1)],
    ]);
    expect(found[0]![0]).toEqual({ id: 'b', tags: ['user:a'], payload: expect.any(String), content: null });
    expect(searches()).toEqual([
      {
        query: {
          bool: {
            must: [{ match: { content: { query: 'storm harbour', operator: 'or', zero_terms_query: 'none' } } }],
            filter: [{ term: { tags: 'user:a' } }],
          },
        },
        size: 5,
        sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
        track_scores: true,
        _source: { excludes: ['content', 'embedding'] },
        track_total_hits: false,
      },
    ]);
  });

  it('on a keyword fullText property of a typed collection, the match is on its text sub-field; a missing index finds nothing', async () => {
    const d = driver({}, 'app-');
    const title = Page.data[0]!;
    expect(await d.lexicalSearch('pages', Page, { property: title, text: 'x', filter: undefined, limit: 3, includeVectors: true })).toEqual(
      [],
    );
    expect(searches()[0]).toMatchObject({
      query: { bool: { must: [{ match: { 'title.text': { query: 'x' } } }] } },
      _source: { excludes: [] },
    });
  });
});

describe('field storage for KM layouts', () => {
  it('jsonFields: a native object in _source, mapped object enabled:false, read back as JSON text; textFields: text alone', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    expect(es.indexes.get('km-notes')!.mappings).toEqual({
      dynamic: 'strict',
      properties: {
        id: { type: 'keyword' },
        tags: { type: 'keyword' },
        payload: { type: 'object', enabled: false },
        content: { type: 'text' },
        embedding: {
          type: 'dense_vector',
          dims: 2,
          index: true,
          similarity: 'cosine',
          index_options: { type: 'hnsw', m: 16, ef_construction: 100 },
        },
      },
    });
    await d.upsert('notes', Note, [note('a', 'hello')]);
    expect(es.indexes.get('km-notes')!.docs.get('a')).toEqual({
      id: 'a',
      tags: ['user:a'],
      payload: { text: 'hello', nested: { list: [1, 'é', null] } },
      content: 'hello',
      embedding: [1, 0],
    });
    const [got] = await d.get('notes', Note, ['a'], true);
    expect(got).toEqual({ ...note('a', 'hello'), content: null });
    expect(es.requests.at(-1)!.path).toContain('_source_excludes=content');
  });

  it('hashedIds: a key over 512 bytes (or looking hashed) gets a sha256 _id; the key field keeps it', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    const long = `x${'é'.repeat(300)}`;
    await d.upsert('notes', Note, [note(long), note('sha256:abc')]);
    const ids = [...es.indexes.get('km-notes')!.docs.keys()];
    expect(ids.every((id) => /^sha256:[0-9a-f]{64}$/.test(id))).toBe(true);
    expect((await d.get('notes', Note, [long], false)).map((r) => r.id)).toEqual([long]);
    await d.delete('notes', Note, [long, 'sha256:abc']);
    expect(es.indexes.get('km-notes')!.docs.size).toBe(0);
  });

  it('plainIndexNames: {prefix}{name} unchanged, listed as they are; a name Elasticsearch refuses is invalid_index_name', async () => {
    const d = driver(KM_STORAGE);
    expect(d.indexName('-dash')).toBe('km--dash');
    for (const name of ['km-notes', 'km--dash', 'km-', 'other']) es.indexes.set(name, { mappings: {}, docs: new Map() });
    expect(await d.listCollections()).toEqual(['-dash', 'notes']);
    expect(() => driver(KM_STORAGE, '').indexName('-dash')).toThrow(expect.objectContaining({ code: 'invalid_index_name' }));
    expect(driver({}, 'km-').indexName('Notes')).toBe('km-n~otes');
  });
});

describe('query: order and paging', () => {
  // Elasticsearch sorts keywords by UTF-8 bytes; km lists ids by UTF-16 code units (compareRecordIds).
  const ODD = ['a\uffff', 'a😀', 'a\ue000', 'ab', 'a\u00e9'];
  const byKey = (limit: number, descending = false) => ({
    filter: undefined,
    orderBy: [{ storageName: 'id', descending }],
    limit,
    includeVectors: false,
  });

  it('the two orders differ on these ids (the case the driver handles)', () => {
    expect([...ODD].sort(compareUtf8)).not.toEqual([...ODD].sort(compareRecordIds));
  });

  it('ordered by the key, records come in UTF-16 code-unit order, limited or not, ascending or descending', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    await d.upsert(
      'notes',
      Note,
      ODD.map((id) => note(id)),
    );
    const utf16 = [...ODD].sort(compareRecordIds);
    expect((await d.query('notes', Note, byKey(100))).map((r) => r.id)).toEqual(utf16);
    expect((await d.query('notes', Note, byKey(2))).map((r) => r.id)).toEqual(utf16.slice(0, 2));
    expect((await d.query('notes', Note, byKey(3, true))).map((r) => r.id)).toEqual([...utf16].reverse().slice(0, 3));
  });

  it('a limited read whose first hits hold no such character is one request', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    await d.upsert(
      'notes',
      Note,
      ODD.map((id) => note(id)),
    );
    es.requests.length = 0;
    expect((await d.query('notes', Note, byKey(2))).map((r) => r.id)).toEqual(['ab', 'a\u00e9']);
    expect(searches()).toEqual([
      {
        query: { match_all: {} },
        sort: [{ id: 'asc' }],
        size: 2,
        _source: { excludes: ['content', 'embedding'] },
        track_total_hits: false,
      },
    ]);
  });

  it('pages of 1000 with search_after, up to the limit', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    const ids = Array.from({ length: 2500 }, (_, i) => `r${String(i).padStart(4, '0')}`);
    await d.upsert(
      'notes',
      Note,
      ids.map((id) => note(id)),
    );
    es.requests.length = 0;
    expect((await d.query('notes', Note, byKey(Number.MAX_SAFE_INTEGER))).map((r) => r.id)).toEqual(ids);
    expect(searches().map((s) => [s.size, s.search_after])).toEqual([
      [1000, undefined],
      [1000, ['r0999']],
      [1000, ['r1999']],
    ]);
    expect(await d.query('notes', Note, byKey(1500))).toHaveLength(1500);
  });

  it('queryPages yields each page before it asks for the next', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    const ids = Array.from({ length: 2500 }, (_, i) => `r${String(i).padStart(4, '0')}`);
    await d.upsert(
      'notes',
      Note,
      ids.map((id) => note(id)),
    );
    es.requests.length = 0;
    const sizes: number[] = [];
    for await (const page of d.queryPages('notes', Note, byKey(Number.MAX_SAFE_INTEGER))) {
      expect(searches()).toHaveLength(sizes.length + 1);
      sizes.push(page.length);
    }
    expect(sizes).toEqual([1000, 1000, 500]);
  });

  it('runs of ids whose orders differ are sorted where they stand, across pages, limited or not, both ways', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    // Runs of odd ids around page boundaries (999/1000, 1999/2000) and at both ends.
    const ids = Array.from({ length: 2400 }, (_, i) => {
      const base = `r${String(i).padStart(4, '0')}`;
      const odd = i < 3 || (i >= 995 && i < 1005) || (i >= 1990 && i < 2010) || i >= 2395;
      return odd ? `${base}${ODD[i % 3]}` : base;
    });
    for (let i = 0; i < ids.length; i += 500)
      await d.upsert(
        'notes',
        Note,
        ids.slice(i, i + 500).map((id) => note(id)),
      );
    const utf16 = [...ids].sort(compareRecordIds);
    for (const limit of [Number.MAX_SAFE_INTEGER, 2, 997, 1000, 1001, 2000, 2397]) {
      for (const descending of [false, true]) {
        const want = (descending ? [...utf16].reverse() : utf16).slice(0, limit);
        const pages: string[][] = [];
        for await (const page of d.queryPages('notes', Note, byKey(limit, descending))) pages.push(page.map((r) => String(r.id)));
        expect(pages.flat(), `${limit} ${descending}`).toEqual(want);
        expect(await d.query('notes', Note, byKey(limit, descending)).then((rs) => rs.map((r) => r.id))).toEqual(want);
      }
    }
  });

  it('a caller that stops after the first page makes one request', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    await d.upsert(
      'notes',
      Note,
      Array.from({ length: 1500 }, (_, i) => note(`r${String(i).padStart(4, '0')}`)),
    );
    es.requests.length = 0;
    for await (const page of d.queryPages('notes', Note, byKey(Number.MAX_SAFE_INTEGER))) {
      expect(page).toHaveLength(1000);
      break;
    }
    expect(searches()).toHaveLength(1);
  });

  it('a run longer than a page holds its keys only, then reads its records by key a page at a time (mget)', async () => {
    const d = driver(KM_STORAGE);
    await d.createCollection('notes', Note);
    // 2500 odd ids in one run, between two ordinary ones.
    const ids = ['a0', ...Array.from({ length: 2500 }, (_, i) => `b${String(i).padStart(4, '0')}${ODD[i % 3]}`), 'c0'];
    for (let i = 0; i < ids.length; i += 500)
      await d.upsert(
        'notes',
        Note,
        ids.slice(i, i + 500).map((id) => note(id)),
      );
    const utf16 = [...ids].sort(compareRecordIds);
    for (const [limit, descending] of [
      [Number.MAX_SAFE_INTEGER, false],
      [Number.MAX_SAFE_INTEGER, true],
      [1500, false],
    ] as const) {
      es.requests.length = 0;
      const pages: string[][] = [];
      for await (const page of d.queryPages('notes', Note, byKey(limit, descending))) pages.push(page.map((r) => String(r.id)));
      expect(pages.flat(), `${limit} ${descending}`).toEqual((descending ? [...utf16].reverse() : utf16).slice(0, limit));
      expect(Math.max(...pages.map((p) => p.length))).toBeLessThanOrEqual(1000);
      const mgets = es.requests.filter((r) => r.path.includes('/_mget')).map((r) => (r.json as { ids: string[] }).ids.length);
      expect(mgets.length).toBeGreaterThan(0);
      expect(Math.max(...mgets)).toBeLessThanOrEqual(1000);
    }
  });
});
