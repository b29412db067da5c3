import { isKmError } from '@km/core';
import { KmRecordLayout, type StorageRecord } from '@km/core/connector';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { documentKeyOf } from '../src/document-key.js';
import { AzureAiSearchVectorStoreDriver } from '../src/vector-store/azure-ai-search-vector-store-driver.js';
import { type AzureIndexLayout, KM_INDEX_LAYOUT } from '../src/vector-store/azure-index-layout.js';
import { vectorIndexDefinition } from '../src/vector-store/azure-vector-index.js';
import { FakeSearchService } from './fixtures/fake-search-service.js';
import { Hotel } from './vector-store-fixtures.js';

// What the typed driver gained to carry km's memory indexes (ADR 0004): vectorDimensions,
// lexicalSearch, key-order listing in one request per page, and the layout options that keep
// km 0.x's indexes as they were. Checked on the fake service of the compatibility test.
let service: FakeSearchService;
beforeEach(async () => {
  service = await FakeSearchService.start();
});
afterEach(() => service.close());

const open = (layout?: AzureIndexLayout, collectionPrefix = 'kmvs-') =>
  new AzureAiSearchVectorStoreDriver({
    endpoint: service.url,
    apiKey: 'k',
    allowInsecureConnection: true,
    maxRetries: 0,
    collectionPrefix,
    ...(layout && { layout }),
  });
const km = new KmRecordLayout().definition(3);
const searches = () => service.requests.filter((r) => r.path.includes('/docs/search.post.search')).map((r) => r.body);
const row = (id: string, text: string, vector = [1, 0, 0]): StorageRecord => ({
  id,
  tags: ['user:a'],
  payload: JSON.stringify({ text }),
  content: text,
  embedding: Float32Array.from(vector),
});

describe('vectorDimensions', () => {
  it('reads the dimensions of a vector field from the index definition; undefined for a missing index or field', async () => {
    const driver = open();
    await driver.createCollection('hotels', Hotel);
    expect(await driver.vectorDimensions('hotels', 'embedding')).toBe(3);
    expect(await driver.vectorDimensions('hotels', 'dotVector')).toBe(2);
    expect(await driver.vectorDimensions('hotels', 'hotel_name')).toBeUndefined();
    expect(await driver.vectorDimensions('gone', 'embedding')).toBeUndefined();
  });
});

describe('lexicalSearch', () => {
  it('a simple-syntax search of the property, escaped, any word, global BM25 statistics, best first then key, scores s / (s + 1)', async () => {
    const driver = open(KM_INDEX_LAYOUT);
    await driver.createCollection('notes', km);
    await driver.upsert('notes', km, [row('a', 'typhoon warning'), row('b', 'typhoon typhoon'), row('c', 'calm')]);
    service.requests.length = 0;
    const found = await driver.lexicalSearch('notes', km, {
      property: km.data.find((d) => d.fullText)!,
      text: `typhoon -"x" (a|b)*`,
      filter: { op: 'not', node: { op: 'contains', property: km.data[0]! as never, value: 'user:z' } },
      limit: 4,
      includeVectors: false,
    });
    expect(searches()).toEqual([
      {
        search: 'typhoon \\-\\"x\\" \\(a\\|b\\)\\*',
        searchFields: 'content',
        queryType: 'simple',
        searchMode: 'any',
        scoringStatistics: 'global',
        filter: "not tags/any(t: t eq 'user:z')",
        orderby: 'search.score() desc,id asc',
        top: 4,
        select: 'id,tags,payload',
      },
    ]);
    expect(found.map(([r, score]) => [r.id, score])).toEqual([
      ['b', 1.5 / 2.5],
      ['a', 0.75 / 1.75],
    ]);
    expect(found[0]![0]).toMatchObject({ tags: ['user:a'], payload: '{"text":"typhoon typhoon"}', content: null });
  });

  it('a text without letters or digits, a filter matching nothing or a missing index find nothing', async () => {
    const driver = open(KM_INDEX_LAYOUT);
    await driver.createCollection('notes', km);
    const query = { property: km.data.find((d) => d.fullText)!, text: '*', filter: undefined, limit: 5, includeVectors: false };
    expect(await driver.lexicalSearch('notes', km, query)).toEqual([]);
    expect(await driver.lexicalSearch('notes', km, { ...query, text: 'x', filter: { op: 'or', nodes: [] } })).toEqual([]);
    expect(searches()).toEqual([]);
    expect(await driver.lexicalSearch('gone', km, { ...query, text: 'x' })).toEqual([]);
  });
});

describe('query in key order', () => {
  it('string keys by the key ascending: pages of the records themselves after the last key, no second read', async () => {
    const driver = open();
    await driver.createCollection('notes', km);
    await driver.upsert('notes', km, [row('b', 'x'), row('a', 'y'), row('c', 'z')]);
    service.requests.length = 0;
    const rows = await driver.query('notes', km, {
      filter: undefined,
      orderBy: [{ storageName: 'id', descending: false }],
      limit: 2,
      includeVectors: true,
    });
    expect(rows.map((r) => r.id)).toEqual(['a', 'b']);
    expect(rows[0]!.embedding).toEqual(Float32Array.from([1, 0, 0]));
    expect(searches()).toEqual([{ search: '*', orderby: 'id asc', top: 2, select: 'id,tags,payload,content,embedding' }]);
  });
});

describe("the layout of km's memory indexes", () => {
  it('definition: the key text field after the key, hidden fields not retrievable, the cosine profile named as km 0.x named it', () => {
    const definition = vectorIndexDefinition('km-notes', km, { m: 8 }, KM_INDEX_LAYOUT);
    expect(definition).toEqual({
      name: 'km-notes',
      fields: [
        { name: 'id', type: 'Edm.String', key: true, filterable: true, sortable: true },
        { name: 'recordId', type: 'Edm.String' },
        { name: 'tags', type: 'Collection(Edm.String)', filterable: true },
        { name: 'payload', type: 'Edm.String', filterable: false },
        { name: 'content', type: 'Edm.String', filterable: false, searchable: true, hidden: true },
        {
          name: 'embedding',
          type: 'Collection(Edm.Single)',
          searchable: true,
          vectorSearchDimensions: 3,
          vectorSearchProfileName: 'km-vector-profile',
        },
      ],
      vectorSearch: {
        algorithms: [{ name: 'km-hnsw-cosine', kind: 'hnsw', parameters: { metric: 'cosine', m: 8 } }],
        profiles: [{ name: 'km-vector-profile', algorithmConfigurationName: 'km-hnsw-cosine' }],
      },
    });
  });

  it('documents carry the key as given in the key text field; reads never select hidden fields', async () => {
    const driver = open(KM_INDEX_LAYOUT, '');
    await driver.createCollection('km-notes', km);
    await driver.upsert('km-notes', km, [row('d=a//p=1', 'hello')]);
    expect(service.storedDocuments()['km-notes']).toEqual([
      {
        id: documentKeyOf('d=a//p=1'),
        recordId: 'd=a//p=1',
        tags: ['user:a'],
        payload: '{"text":"hello"}',
        content: 'hello',
        embedding: [1, 0, 0],
      },
    ]);
    expect(await driver.get('km-notes', km, ['d=a//p=1'], false)).toEqual([
      { id: 'd=a//p=1', tags: ['user:a'], payload: '{"text":"hello"}', content: null },
    ]);
    expect(searches().map((s) => (s as { select: string }).select)).toEqual(['id,tags,payload']);
  });

  it('createFirst: POST first; after a failed create the index is read up to 3 times (a winner may not be visible at once)', async () => {
    const driver = open(KM_INDEX_LAYOUT, '');
    await driver.createCollection('km-notes', km);
    expect(service.requests.map((r) => r.method)).toEqual(['POST']);
    service.requests.length = 0;
    const conflict = { status: 409, json: { error: { code: 'ResourceNameAlreadyInUse', message: 'exists' } } };
    const notFound = { status: 404, json: { error: { message: 'not yet' } } };
    service.answerNext.push(conflict, notFound);
    await driver.createCollection('km-notes', km); // visible on the second read
    expect(service.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'GET']);
    service.requests.length = 0;
    service.answerNext.push({ status: 400, json: { error: { message: 'bad definition' } } });
    const error = await driver.createCollection('km-other', km).catch((e: unknown) => e);
    expect(isKmError(error, 'upstream_error')).toBe(true);
    expect(service.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'GET', 'GET']);
    service.answerNext.push(conflict);
    const misfit = await driver.createCollection('km-notes', new KmRecordLayout().definition(4)).catch((e: unknown) => e);
    expect(isKmError(misfit, 'invalid_argument')).toBe(true);
  });

  it('indexNameErrors: a name the service refuses stays invalid_index_name; typed collections get invalid_argument', async () => {
    const kmError = await open(KM_INDEX_LAYOUT, '')
      .collectionExists('km-a--b')
      .catch((e: unknown) => e);
    expect(isKmError(kmError, 'invalid_index_name')).toBe(true);
    const typedError = await open()
      .collectionExists('a--b')
      .catch((e: unknown) => e);
    expect(isKmError(typedError, 'invalid_argument')).toBe(true);
    expect(service.requests).toHaveLength(0);
  });
});
