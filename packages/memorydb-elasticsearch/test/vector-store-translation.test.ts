import { defineRecord, isKmError } from '@km/core';
import { compileFilter, vectorScore } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import {
  collectionOfIndex,
  indexOfCollection,
  scoreFromElasticsearch,
  scoreToElasticsearch,
  toElasticsearchVectorFilter,
  vectorIndexMappings,
} from '../src/index.js';
import { checkExistingMapping } from '../src/vector-store/elasticsearch-vector-mapping.js';

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string', filterable: true, fullText: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true },
    rooms: { type: 'integer', filterable: true },
    open: { type: 'boolean', filterable: true },
    opened: { type: 'date', filterable: true, optional: true },
    tags: { type: 'string[]', filterable: true },
    prices: { type: 'number[]' },
  },
  vectors: {
    embedding: { dimensions: 3 },
    photo: { dimensions: 2, distance: 'euclidean', storageName: 'photo_vec' },
    mix: { dimensions: 2, distance: 'dot' },
  },
});
const Numbered = defineRecord({ key: { name: 'n', type: 'integer', storageName: 'num' }, vectors: { v: { dimensions: 2 } } });

const translate = (filter: unknown, definition: typeof Hotel | typeof Numbered = Hotel) =>
  toElasticsearchVectorFilter(compileFilter(definition, filter));

describe('typed filters → Elasticsearch queries', () => {
  it('no filter is no query', () => {
    expect(translate(undefined)).toBeUndefined();
    expect(translate({})).toBeUndefined();
  });

  it('equality is a term on the storage name (dates as ISO 8601), several conditions a bool filter', () => {
    expect(translate({ name: 'a"b', rating: 4.5, rooms: 3, open: false, opened: '2024-01-02T03:04:05.006Z' })).toEqual({
      bool: {
        filter: [
          { term: { hotel_name: 'a"b' } },
          { term: { rating: 4.5 } },
          { term: { rooms: 3 } },
          { term: { open: false } },
          { term: { opened: '2024-01-02T03:04:05.006Z' } },
        ],
      },
    });
  });

  it('ne and not are bool must_not (true for documents without the field)', () => {
    expect(translate({ name: { ne: 'x' } })).toEqual({ bool: { must_not: [{ term: { hotel_name: 'x' } }] } });
    expect(translate({ not: { rating: { lt: 2 } } })).toEqual({ bool: { must_not: [{ range: { rating: { lt: 2 } } }] } });
  });

  it('ranges, in (terms; match_none when empty), contains (a term on the array field)', () => {
    expect(translate({ opened: { gte: new Date('2020-01-01T00:00:00Z') } })).toEqual({
      range: { opened: { gte: '2020-01-01T00:00:00.000Z' } },
    });
    expect(translate({ rooms: { in: [1, 2] } })).toEqual({ terms: { rooms: [1, 2] } });
    expect(translate({ name: { in: [] } })).toEqual({ match_none: {} });
    expect(translate({ tags: { contains: '*' } })).toEqual({ term: { tags: '*' } });
  });

  it('or is a should with minimum_should_match 1; or: [] matches nothing, and: [] everything', () => {
    expect(translate({ or: [{ name: 'a' }, { rooms: 2 }] })).toEqual({
      bool: { should: [{ term: { hotel_name: 'a' } }, { term: { rooms: 2 } }], minimum_should_match: 1 },
    });
    expect(translate({ or: [] })).toEqual({ match_none: {} });
    expect(translate({ not: { and: [] } })).toEqual({ bool: { must_not: [{ match_all: {} }] } });
  });

  it('the key: ids on _id (string form); ranges on an integer key read its field', () => {
    expect(translate({ hotelId: { in: ['h1', 'h2'] } })).toEqual({ ids: { values: ['h1', 'h2'] } });
    expect(translate({ n: 7 }, Numbered)).toEqual({ ids: { values: ['7'] } });
    expect(translate({ n: { gt: 7 } }, Numbered)).toEqual({ range: { num: { gt: 7 } } });
  });

  it('a range on a string key (which core refuses first) is unsupported_filter here too', () => {
    const node = { op: 'lt', property: Hotel.key, value: 'a' } as const;
    expect(() => toElasticsearchVectorFilter(node)).toThrow(expect.objectContaining({ code: 'unsupported_filter' }));
  });
});

describe('Elasticsearch scores in km convention', () => {
  it('inverts the documented _score of each similarity', () => {
    const a = [0.3, -0.4, 0.5];
    const b = [0.1, 0.2, -0.9];
    for (const distance of ['cosine', 'dot', 'euclidean'] as const) {
      const value = vectorScore(distance, a, b);
      expect(scoreFromElasticsearch(distance, scoreToElasticsearch(distance, value))).toBeCloseTo(value, 12);
    }
    expect(scoreFromElasticsearch('cosine', 0.9)).toBeCloseTo(0.8, 12);
    expect(scoreFromElasticsearch('euclidean', 0.2)).toBeCloseTo(2, 12);
    expect(scoreFromElasticsearch('dot', 0.25)).toBeCloseTo(-3, 12);
    expect(scoreFromElasticsearch('dot', 4)).toBeCloseTo(3, 12);
  });
});

describe('index names of collections', () => {
  it('lower-case names are the index; an upper-case letter is written lower case followed by ~', () => {
    expect(indexOfCollection('', 'hotels')).toBe('hotels');
    expect(indexOfCollection('app-', 'Hotels_EU-2')).toBe('app-h~otels_e~u~-2');
    expect(collectionOfIndex('app-', 'app-h~otels_e~u~-2')).toBe('Hotels_EU-2');
    expect(collectionOfIndex('app-', 'app-hotels')).toBe('hotels');
  });

  it('indexes that are no collection of this store are not listed', () => {
    for (const index of ['other', 'app-', 'app-~x', 'app-_x', 'app-a.b', 'app-1~'])
      expect(collectionOfIndex('app-', index)).toBeUndefined();
  });

  it('a name whose index would pass 255 bytes is invalid_argument', () => {
    expect(() => indexOfCollection('', 'A'.repeat(128))).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('mappings of typed collections', () => {
  it('a strict mapping with a field per property by storage name and a dense_vector per vector', () => {
    expect(vectorIndexMappings(Hotel, { m: 8 })).toEqual({
      dynamic: 'strict',
      properties: {
        hotelId: { type: 'keyword' },
        hotel_name: { type: 'keyword', fields: { text: { type: 'text' } } },
        rating: { type: 'double' },
        rooms: { type: 'long' },
        open: { type: 'boolean' },
        opened: { type: 'date' },
        tags: { type: 'keyword' },
        prices: { type: 'double' },
        embedding: {
          type: 'dense_vector',
          dims: 3,
          index: true,
          similarity: 'cosine',
          index_options: { type: 'hnsw', m: 8, ef_construction: 100 },
        },
        photo_vec: {
          type: 'dense_vector',
          dims: 2,
          index: true,
          similarity: 'l2_norm',
          index_options: { type: 'hnsw', m: 8, ef_construction: 100 },
        },
        mix: {
          type: 'dense_vector',
          dims: 2,
          index: true,
          similarity: 'max_inner_product',
          index_options: { type: 'hnsw', m: 8, ef_construction: 100 },
        },
      },
    });
    expect(vectorIndexMappings(Numbered, undefined).properties?.num).toEqual({ type: 'long' });
  });

  it('an existing mapping must hold every field, vectors of the same size and similarity', () => {
    const mapping = vectorIndexMappings(Hotel, undefined);
    expect(() => checkExistingMapping('h', Hotel, mapping)).not.toThrow();
    const { rooms: _, ...withoutRooms } = mapping.properties!;
    const error = (() => {
      try {
        checkExistingMapping('h', Hotel, { properties: withoutRooms });
      } catch (e) {
        return e;
      }
    })();
    expect(isKmError(error, 'invalid_argument') && (error as Error).message.includes('"rooms"')).toBe(true);
    const resized = {
      properties: { ...mapping.properties, embedding: { type: 'dense_vector' as const, dims: 4, similarity: 'cosine' as const } },
    };
    expect(() => checkExistingMapping('h', Hotel, resized)).toThrow(expect.objectContaining({ code: 'vector_size_mismatch' }));
    const dotted = defineRecord({
      key: 'id',
      data: { v: { type: 'string', storageName: 'a.b' } },
      vectors: { e: { dimensions: 2, storageName: 'a.e' } },
    });
    const expanded = {
      properties: {
        id: { type: 'keyword' as const },
        a: {
          properties: { b: { type: 'keyword' as const }, e: { type: 'dense_vector' as const, dims: 2, similarity: 'cosine' as const } },
        },
      },
    };
    expect(() => checkExistingMapping('h', dotted, expanded), 'dotted names are read through objects').not.toThrow();
    const l2 = {
      properties: { ...mapping.properties, embedding: { type: 'dense_vector' as const, dims: 3, similarity: 'l2_norm' as const } },
    };
    expect(() => checkExistingMapping('h', Hotel, l2)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
