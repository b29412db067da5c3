import { defineRecord, isKmError } from '@km/core';
import type { FilterNode } from '@km/core/connector';
import { vectorScore } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { documentKeyOf } from '../src/document-key.js';
import { checkFieldNames, fromAzureDocument, toAzureDocument } from '../src/vector-store/azure-vector-documents.js';
import { MATCH_NOTHING, toODataVectorFilter } from '../src/vector-store/azure-vector-filter.js';
import { checkVectorIndex, vectorIndexDefinition } from '../src/vector-store/azure-vector-index.js';
import { scoreOfHit } from '../src/vector-store/azure-vector-scores.js';
import { Counter, Hotel, property } from './vector-store-fixtures.js';

// Pure translation of the Azure AI Search vector store: index definition, OData filters,
// documents and scores. Whether the service selects the right records is for describeVectorStore
// (tests-integration/test/vector-store-azure-ai-search.test.ts).
const p = (name: string) => property(Hotel, name);
const f = (node: FilterNode | undefined) => toODataVectorFilter(node);
const codeOf = (run: () => unknown) => {
  try {
    run();
    return 'no error';
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('index definition', () => {
  it('a key field, each data property with its EDM type, each vector with the profile of its distance over an HNSW metric', () => {
    const index = vectorIndexDefinition('kmvs-hotels', Hotel, { m: 8 });
    expect(index.fields).toEqual([
      { name: 'hotelId', type: 'Edm.String', key: true, filterable: true, sortable: true },
      { name: 'hotel_name', type: 'Edm.String', filterable: true, searchable: true },
      { name: 'rating', type: 'Edm.Double', filterable: true },
      { name: 'rooms', type: 'Edm.Int64', filterable: true },
      { name: 'pets', type: 'Edm.Boolean', filterable: true },
      { name: 'opened', type: 'Edm.DateTimeOffset', filterable: true },
      { name: 'tags', type: 'Collection(Edm.String)', filterable: true },
      { name: 'floors', type: 'Collection(Edm.Double)', filterable: true },
      { name: 'description', type: 'Edm.String', filterable: false },
      {
        name: 'embedding',
        type: 'Collection(Edm.Single)',
        searchable: true,
        vectorSearchDimensions: 3,
        vectorSearchProfileName: 'kmvs-cosine',
      },
      {
        name: 'dotVector',
        type: 'Collection(Edm.Single)',
        searchable: true,
        vectorSearchDimensions: 2,
        vectorSearchProfileName: 'kmvs-dot',
      },
      {
        name: 'l2Vector',
        type: 'Collection(Edm.Single)',
        searchable: true,
        vectorSearchDimensions: 2,
        vectorSearchProfileName: 'kmvs-euclidean',
      },
    ]);
    expect(index.vectorSearch).toEqual({
      algorithms: [
        { name: 'kmvs-hnsw-cosine', kind: 'hnsw', parameters: { metric: 'cosine', m: 8 } },
        { name: 'kmvs-hnsw-dot', kind: 'hnsw', parameters: { metric: 'dotProduct', m: 8 } },
        { name: 'kmvs-hnsw-euclidean', kind: 'hnsw', parameters: { metric: 'euclidean', m: 8 } },
      ],
      profiles: [
        { name: 'kmvs-cosine', algorithmConfigurationName: 'kmvs-hnsw-cosine' },
        { name: 'kmvs-dot', algorithmConfigurationName: 'kmvs-hnsw-dot' },
        { name: 'kmvs-euclidean', algorithmConfigurationName: 'kmvs-hnsw-euclidean' },
      ],
    });
  });

  it('an existing index must fit: key, vector dimensions and metric, filterable fields; the first misfit is named', () => {
    const index = vectorIndexDefinition('kmvs-c', Counter);
    expect(() => checkVectorIndex(index, Counter)).not.toThrow();
    const changed = [
      [{ ...index, fields: index.fields.filter((x) => x.name !== 'label') }, 'no filterable field "label"'],
      [
        { ...index, fields: index.fields.map((x) => (x.name === 'v' ? { ...x, vectorSearchDimensions: 3 } : x)) },
        'declares "v" with 3 dimensions',
      ],
      [
        {
          ...index,
          vectorSearch: vectorIndexDefinition('x', { ...Counter, vectors: [{ ...Counter.vectors[0]!, distance: 'cosine' }] }).vectorSearch,
        },
        'and cosine',
      ],
      [{ ...index, fields: index.fields.map((x) => ({ ...x, key: false })) }, 'no key field "counter_id"'],
    ] as const;
    for (const [candidate, message] of changed) {
      expect(() => checkVectorIndex(candidate as never, Counter)).toThrow(message);
    }
  });

  it('storage names must be field names the service takes (they cannot be quoted in OData)', () => {
    const bad = defineRecord({ key: 'k', data: { a: { type: 'string', storageName: 'a b' } }, vectors: { v: { dimensions: 2 } } });
    expect(codeOf(() => checkFieldNames(bad))).toBe('invalid_argument');
    const reserved = defineRecord({
      key: 'k',
      data: { a: { type: 'string', storageName: 'azureSearchX' } },
      vectors: { v: { dimensions: 2 } },
    });
    expect(codeOf(() => checkFieldNames(reserved))).toBe('invalid_argument');
    expect(codeOf(() => checkFieldNames(Hotel))).toBe('no error');
  });
});

describe('filters', () => {
  it('no filter and and: [] match everything; in: [] and or: [] nothing (nothing is sent)', () => {
    expect(f(undefined)).toBeUndefined();
    expect(f({ op: 'and', nodes: [] })).toBeUndefined();
    expect(f({ op: 'or', nodes: [] })).toBe(MATCH_NOTHING);
    expect(f({ op: 'in', property: p('rooms'), values: [] })).toBe(MATCH_NOTHING);
    expect(f({ op: 'not', node: { op: 'or', nodes: [] } })).toBeUndefined();
  });

  it('comparisons with OData literals: strings quoted (quotes doubled), numbers, booleans, dates as DateTimeOffset', () => {
    expect(f({ op: 'eq', property: p('name'), value: "O'Hara' or true or 'x" })).toBe("hotel_name eq 'O''Hara'' or true or ''x'");
    expect(f({ op: 'gte', property: p('rating'), value: 4.5 })).toBe('rating ge 4.5');
    expect(f({ op: 'lt', property: p('rooms'), value: -0 })).toBe('rooms lt 0');
    expect(f({ op: 'ne', property: p('pets'), value: true })).toBe('pets ne true');
    expect(f({ op: 'lte', property: p('opened'), value: new Date('2024-05-01T00:00:00Z') })).toBe('opened le 2024-05-01T00:00:00.000Z');
  });

  it('the key is compared in its document-key form; ranges on the key are unsupported_filter', () => {
    expect(f({ op: 'eq', property: p('hotelId'), value: 'a' })).toBe(`hotelId eq '${documentKeyOf('a')}'`);
    expect(f({ op: 'in', property: property(Counter, 'id'), values: [1, 22] })).toBe("search.in(counter_id, '1|22', '|')");
    expect(codeOf(() => f({ op: 'gt', property: property(Counter, 'id'), value: 3 }))).toBe('unsupported_filter');
  });

  it('in is search.in when a delimiter fits, else eqs; contains is any(); not, and, or nest', () => {
    expect(f({ op: 'in', property: p('name'), values: ['a', 'b'] })).toBe("search.in(hotel_name, 'a|b', '|')");
    expect(f({ op: 'in', property: p('name'), values: [' a', 'b'] })).toBe("(hotel_name eq ' a' or hotel_name eq 'b')");
    expect(f({ op: 'in', property: p('rating'), values: [1, 2.5] })).toBe('(rating eq 1 or rating eq 2.5)');
    expect(f({ op: 'contains', property: p('tags'), value: "it's" })).toBe("tags/any(t: t eq 'it''s')");
    expect(f({ op: 'contains', property: p('floors'), value: 2 })).toBe('floors/any(t: t eq 2)');
    expect(
      f({
        op: 'or',
        nodes: [
          {
            op: 'and',
            nodes: [
              { op: 'gt', property: p('rating'), value: 3 },
              { op: 'eq', property: p('pets'), value: false },
            ],
          },
          { op: 'not', node: { op: 'eq', property: p('name'), value: 'x' } },
        ],
      }),
    ).toBe("(rating gt 3 and pets eq false) or not (hotel_name eq 'x')");
  });

  it('string contains on one property fold into one search.in: or-ed (any of them), negated and and-ed (none of them)', () => {
    const has = (value: string | number) => ({ op: 'contains' as const, property: p('tags'), value });
    const not = (node: ReturnType<typeof has>) => ({ op: 'not' as const, node });
    expect(f({ op: 'or', nodes: [has('a'), has('b'), has('a')] })).toBe("tags/any(t: search.in(t, 'a|b', '|'))");
    expect(f({ op: 'and', nodes: [has('a'), not(has('b')), not(has('c'))] })).toBe(
      "tags/any(t: t eq 'a') and not tags/any(t: search.in(t, 'b|c', '|'))",
    );
    // Equalities ANDed stay separate (all required); values a delimiter cannot split stay eqs.
    expect(f({ op: 'and', nodes: [has('a'), has('b')] })).toBe("tags/any(t: t eq 'a') and tags/any(t: t eq 'b')");
    expect(f({ op: 'or', nodes: [has(' a'), has('b')] })).toBe("tags/any(t: t eq ' a') or tags/any(t: t eq 'b')");
    expect(f({ op: 'or', nodes: [{ op: 'and', nodes: [has('a'), not(has('b'))] }, has('c'), has('d')] })).toBe(
      "(tags/any(t: t eq 'a') and not tags/any(t: t eq 'b')) or tags/any(t: search.in(t, 'c|d', '|'))",
    );
  });
});

describe('documents', () => {
  it('the key encoded (string keys by documentKeyOf, integers as text), nulls as null, vectors as arrays; read back as the record', () => {
    const opened = new Date('2024-05-01T10:20:30.456Z');
    const record = {
      hotelId: 'h/1',
      hotel_name: 'Sea View',
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
    const document = toAzureDocument(Hotel, record);
    expect(document).toMatchObject({ hotelId: documentKeyOf('h/1'), description: null, dotVector: null, embedding: [0.5, -1, 2] });
    expect(fromAzureDocument(Hotel, document, true)).toEqual(record);
    expect(fromAzureDocument(Hotel, document, false)).not.toHaveProperty('embedding');
    expect(toAzureDocument(Counter, { counter_id: 7, label: 'x', v: new Float32Array([1, 2]) }).counter_id).toBe('7');
    expect(fromAzureDocument(Counter, { counter_id: '7', label: 'x' }, false)).toEqual({ counter_id: 7, label: 'x' });
  });

  it('what the SDK makes of some strings is given back as text: dates from ISO text, numbers from NaN / INF', () => {
    const read = fromAzureDocument(
      Hotel,
      { hotelId: documentKeyOf('a'), hotel_name: Number.NaN, tags: [new Date('2024-01-01T00:00:00.000Z'), -Infinity] },
      false,
    );
    expect(read).toMatchObject({ hotel_name: 'NaN', tags: ['2024-01-01T00:00:00.000Z', '-INF'] });
  });

  it('a string key longer than a document key can hold is invalid_argument', () => {
    expect(codeOf(() => toAzureDocument(Hotel, { hotelId: 'x'.repeat(321), hotel_name: 'n' }))).toBe('invalid_argument');
  });
});

describe('scores', () => {
  const query = new Float32Array([0.6, 0.8]);
  it('cosine from the documented 1 / (2 - cos); dot and euclidean computed from the hit vector', () => {
    const hit = [1, 0];
    const cos = vectorScore('cosine', query, hit);
    expect(scoreOfHit('cosine', 1 / (2 - cos), query, undefined)).toBeCloseTo(cos, 6);
    expect(scoreOfHit('dot', 0.123, query, hit)).toBeCloseTo(0.6, 6);
    expect(scoreOfHit('euclidean', 0.123, query, hit)).toBeCloseTo(Math.hypot(0.4, 0.8), 6);
    expect(
      isKmError(
        (() => {
          try {
            scoreOfHit('dot', 1, query, undefined);
          } catch (e) {
            return e;
          }
        })(),
        'upstream_error',
      ),
    ).toBe(true);
  });
});
