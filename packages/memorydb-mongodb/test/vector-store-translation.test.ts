import { defineRecord, isKmError } from '@km/core';
import type { FilterNode } from '@km/core/connector';
import { vectorScore } from '@km/core/connector';
import { Double } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { checkFieldNames, fromVectorDocument, toVectorDocument } from '../src/vector-store/mongodb-vector-documents.js';
import { MATCH_NOTHING, toMongoVectorFilter } from '../src/vector-store/mongodb-vector-filter.js';
import { checkVectorIndex, vectorIndexDescription } from '../src/vector-store/mongodb-vector-index.js';
import { scoreFromVectorSearchScore } from '../src/vector-store/mongodb-vector-scores.js';
import { Counter, Hotel, property } from './vector-store-fixtures.js';

// Pure translation of the MongoDB vector store: index definition, filters, documents and
// scores. Whether Atlas selects the right records is for describeVectorStore
// (tests-integration/test/vector-store-mongodb.test.ts).
const p = (name: string) => property(Hotel, name);
const f = (node: FilterNode | undefined) => toMongoVectorFilter(node);

describe('search index', () => {
  it('each vector with the similarity of its distance, _id and each filterable property as filter fields', () => {
    expect(vectorIndexDescription(Hotel)).toEqual({
      name: 'kmvs_vector',
      type: 'vectorSearch',
      definition: {
        fields: [
          { type: 'vector', path: 'embedding', numDimensions: 3, similarity: 'cosine' },
          { type: 'vector', path: 'dotVector', numDimensions: 2, similarity: 'dotProduct' },
          { type: 'vector', path: 'l2Vector', numDimensions: 2, similarity: 'euclidean' },
          { type: 'filter', path: '_id' },
          ...['hotel name', 'rating', 'rooms', 'pets', 'opened', 'tags', 'floors'].map((path) => ({ type: 'filter', path })),
        ],
      },
    });
  });

  it('an existing index must have every vector (same dimensions and similarity) and filter field; the first missing is named', () => {
    const fields = vectorIndexDescription(Counter).definition.fields as Array<Record<string, unknown>>;
    expect(() => checkVectorIndex('c', Counter, { name: 'x', latestDefinition: { fields } })).not.toThrow();
    const cases: Array<[Array<Record<string, unknown>>, string]> = [
      [fields.filter((x) => x.path !== 'label'), 'has no filter field "label" (property "label")'],
      [fields.filter((x) => x.path !== 'v'), 'has no vector field "v" (property "v")'],
      [fields.map((x) => (x.path === 'v' ? { ...x, similarity: 'cosine' } : x)), 'declares "v" with 2 dimensions and cosine'],
    ];
    for (const [changed, message] of cases) {
      const error = (() => {
        try {
          checkVectorIndex('c', Counter, { name: 'x', latestDefinition: { fields: changed } });
        } catch (e) {
          return e;
        }
      })();
      expect(isKmError(error, 'invalid_argument')).toBe(true);
      expect((error as Error).message).toContain(message);
    }
  });
});

describe('filters', () => {
  it('no filter and and: [] match everything; in: [] and or: [] nothing (nothing is sent)', () => {
    expect(f(undefined)).toEqual({});
    expect(f({ op: 'and', nodes: [] })).toEqual({});
    expect(f({ op: 'or', nodes: [] })).toBe(MATCH_NOTHING);
    expect(f({ op: 'in', property: p('rooms'), values: [] })).toBe(MATCH_NOTHING);
    expect(f({ op: 'not', node: { op: 'in', property: p('rooms'), values: [] } })).toEqual({});
    expect(
      f({
        op: 'or',
        nodes: [
          { op: 'eq', property: p('pets'), value: true },
          { op: 'or', nodes: [] },
        ],
      }),
    ).toEqual({ pets: { $eq: true } });
  });

  it('comparisons are MQL operators on the storage name (the key on _id); values stay operands', () => {
    const opened = new Date('2024-05-01T00:00:00Z');
    expect(f({ op: 'eq', property: p('name'), value: '{"$gt":""}' })).toEqual({ 'hotel name': { $eq: '{"$gt":""}' } });
    expect(f({ op: 'eq', property: p('hotelId'), value: 'h1' })).toEqual({ _id: { $eq: 'h1' } });
    expect(f({ op: 'gte', property: p('rating'), value: 4 })).toEqual({ rating: { $gte: 4 } });
    expect(f({ op: 'lt', property: p('opened'), value: opened })).toEqual({ opened: { $lt: opened } });
    expect(f({ op: 'in', property: p('rooms'), values: [1, 2] })).toEqual({ rooms: { $in: [1, 2] } });
    expect(f({ op: 'ne', property: p('pets'), value: true })).toEqual({ pets: { $ne: true } });
    expect(f({ op: 'contains', property: p('tags'), value: 'pool' })).toEqual({ tags: { $eq: 'pool' } });
    expect(f({ op: 'contains', property: p('floors'), value: 2 })).toEqual({ floors: { $eq: 2 } });
  });

  it('and, or map to $and, $or; not is $nor (the complement, matching documents without the field)', () => {
    expect(
      f({
        op: 'or',
        nodes: [
          {
            op: 'and',
            nodes: [
              { op: 'gt', property: p('rating'), value: 3 },
              { op: 'lte', property: p('rooms'), value: 10 },
            ],
          },
          { op: 'not', node: { op: 'eq', property: p('name'), value: 'x' } },
        ],
      }),
    ).toEqual({ $or: [{ $and: [{ rating: { $gt: 3 } }, { rooms: { $lte: 10 } }] }, { $nor: [{ 'hotel name': { $eq: 'x' } }] }] });
  });
});

describe('documents', () => {
  it('the key is _id, null values are left out, vectors are BSON doubles; read back as the record', () => {
    const opened = new Date('2024-05-01T10:20:30.456Z');
    const record = {
      hotelId: 'h1',
      'hotel name': 'Sea View',
      rating: 4.5,
      rooms: 12,
      pets: false,
      opened,
      tags: ['pool', ''],
      floors: [1, 2.5],
      description: null,
      embedding: new Float32Array([0.5, -1, 2]),
      dotVector: null,
      l2Vector: new Float32Array([3, 4]),
    };
    const document = toVectorDocument(Hotel, record);
    expect(document._id).toBe('h1');
    expect(Object.keys(document)).not.toContain('description');
    expect(Object.keys(document)).not.toContain('hotelId');
    expect(document.embedding).toEqual([new Double(0.5), new Double(-1), new Double(2)]);
    const stored = { ...document, embedding: [0.5, -1, 2], l2Vector: [3, 4] };
    expect(fromVectorDocument(Hotel, stored, true)).toEqual({ ...record, dotVector: null });
    expect(fromVectorDocument(Hotel, stored, false)).not.toHaveProperty('embedding');
    expect(fromVectorDocument(Counter, { _id: 7, label: 'x' }, false)).toEqual({ id: 7, label: 'x' });
  });

  it('refuses storage names MongoDB reads as paths or operators, and a key stored anywhere but _id', () => {
    const bad = [
      defineRecord({ key: 'k', data: { a: { type: 'string', storageName: 'a.b' } }, vectors: { v: { dimensions: 2 } } }),
      defineRecord({ key: 'k', data: { a: { type: 'string', storageName: '$a' } }, vectors: { v: { dimensions: 2 } } }),
      defineRecord({ key: { name: 'k', storageName: 'key' }, vectors: { v: { dimensions: 2 } } }),
    ];
    for (const definition of bad) {
      expect(() => checkFieldNames(definition)).toThrow(/MongoDB|_id/);
    }
    expect(() =>
      checkFieldNames(defineRecord({ key: { name: 'k', storageName: '_id' }, vectors: { v: { dimensions: 2 } } })),
    ).not.toThrow();
  });
});

describe('scores', () => {
  const a = new Float32Array([0.6, 0.8]);
  const b = new Float32Array([1, 0]);

  it('turns Atlas scores back: cosine and dotProduct (1 + x) / 2, euclidean 1 / (1 + d)', () => {
    const cos = vectorScore('cosine', a, b);
    const dot = vectorScore('dot', a, b);
    const l2 = vectorScore('euclidean', a, b);
    expect(scoreFromVectorSearchScore('cosine', (1 + cos) / 2)).toBeCloseTo(cos, 6);
    expect(scoreFromVectorSearchScore('dot', (1 + dot) / 2)).toBeCloseTo(dot, 6);
    expect(scoreFromVectorSearchScore('euclidean', 1 / (1 + l2))).toBeCloseTo(l2, 6);
  });
});
