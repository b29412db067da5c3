import { defineRecord } from '@km/core';
import { compileFilter } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { pointIdOf } from '../src/index.js';
import { toQdrantVectorFilter } from '../src/vector-store/qdrant-vector-filter.js';

const NOTHING = { must: [{ has_id: [0] }, { must_not: [{ has_id: [0] }] }] };

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string', filterable: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true },
    rooms: { type: 'integer', filterable: true },
    open: { type: 'boolean', filterable: true },
    opened: { type: 'date', filterable: true },
    tags: { type: 'string[]', filterable: true },
    prices: { type: 'number[]', filterable: true },
  },
  vectors: { embedding: { dimensions: 2 } },
});
const Numbered = defineRecord({ key: { name: 'n', type: 'integer', storageName: 'num' }, vectors: { v: { dimensions: 2 } } });

const translate = (filter: unknown, definition: typeof Hotel | typeof Numbered = Hotel) =>
  toQdrantVectorFilter(compileFilter(definition, filter), definition);

describe('typed filters → Qdrant filters', () => {
  it('no filter or {} is no Qdrant filter', () => {
    expect(translate(undefined)).toBeUndefined();
    expect(translate({})).toBeUndefined();
  });

  it('equality: match.value on strings (by storage name), integers and booleans; a closed range on numbers and dates', () => {
    expect(translate({ name: "o'hara", rooms: 3, open: true, rating: 4.5, opened: new Date('2024-01-02T03:04:05.006Z') })).toEqual({
      must: [
        { key: 'hotel_name', match: { value: "o'hara" } },
        { key: 'rooms', match: { value: 3 } },
        { key: 'open', match: { value: true } },
        { key: 'rating', range: { gte: 4.5, lte: 4.5 } },
        { key: 'opened', range: { gte: '2024-01-02T03:04:05.006Z', lte: '2024-01-02T03:04:05.006Z' } },
      ],
    });
  });

  it('ne and not are must_not (true for points without the field, as the filter language says)', () => {
    expect(translate({ name: { ne: 'x' } })).toEqual({ must_not: [{ key: 'hotel_name', match: { value: 'x' } }] });
    expect(translate({ not: { rating: { gt: 3 } } })).toEqual({ must_not: [{ key: 'rating', range: { gt: 3 } }] });
  });

  it('ranges on numbers, integers and dates', () => {
    expect(translate({ rating: { gte: 4, lt: 5 }, opened: { gt: '2020-01-01T00:00:00Z' } })).toEqual({
      must: [
        {
          must: [
            { key: 'rating', range: { gte: 4 } },
            { key: 'rating', range: { lt: 5 } },
          ],
        },
        { key: 'opened', range: { gt: '2020-01-01T00:00:00.000Z' } },
      ],
    });
  });

  it('in: match.any on strings and integers, a should of closed ranges on numbers, nothing for an empty list', () => {
    expect(translate({ name: { in: ['a', 'b'] } })).toEqual({ must: [{ key: 'hotel_name', match: { any: ['a', 'b'] } }] });
    expect(translate({ rooms: { in: [1, 2] } })).toEqual({ must: [{ key: 'rooms', match: { any: [1, 2] } }] });
    expect(translate({ rating: { in: [1.5] } })).toEqual({ should: [{ key: 'rating', range: { gte: 1.5, lte: 1.5 } }] });
    expect(translate({ name: { in: [] } })).toEqual(NOTHING);
  });

  it('contains on arrays: the element condition, which Qdrant applies to each element', () => {
    expect(translate({ tags: { contains: 'pool' } })).toEqual({ must: [{ key: 'tags', match: { value: 'pool' } }] });
    expect(translate({ prices: { contains: 2 } })).toEqual({ must: [{ key: 'prices', range: { gte: 2, lte: 2 } }] });
  });

  it('and/or nest as must/should; or: [] matches nothing, and: [] everything', () => {
    expect(translate({ or: [{ name: 'a' }, { rooms: 2 }] })).toEqual({
      should: [
        { key: 'hotel_name', match: { value: 'a' } },
        { key: 'rooms', match: { value: 2 } },
      ],
    });
    expect(translate({ or: [] })).toEqual(NOTHING);
    expect(translate({ not: { and: [] } })).toEqual({ must_not: [{ must_not: [NOTHING] }] });
  });

  it('the key is compared by point id: has_id with the derived UUID of a string key', () => {
    expect(translate({ hotelId: 'h1' })).toEqual({ must: [{ has_id: [pointIdOf('h1')] }] });
    expect(translate({ hotelId: { in: ['h1', 'h2'] } })).toEqual({ must: [{ has_id: [pointIdOf('h1'), pointIdOf('h2')] }] });
    expect(translate({ hotelId: { ne: 'h1' } })).toEqual({ must_not: [{ has_id: [pointIdOf('h1')] }] });
  });

  it('an integer key: has_id with the number, ranges on its payload copy', () => {
    expect(translate({ n: 7 }, Numbered)).toEqual({ must: [{ has_id: [7] }] });
    expect(translate({ n: { gte: 7 } }, Numbered)).toEqual({ must: [{ key: 'num', range: { gte: 7 } }] });
  });

  it('hostile strings stay values of match conditions', () => {
    const hostile = '{"must":[]} OR 1=1 *';
    expect(translate({ name: hostile })).toEqual({ must: [{ key: 'hotel_name', match: { value: hostile } }] });
  });

  it('a range on a string key (which core refuses first) is unsupported_filter here too', () => {
    const node = { op: 'gt', property: Hotel.key, value: 'a' } as const;
    expect(() => toQdrantVectorFilter(node, Hotel)).toThrow(expect.objectContaining({ code: 'unsupported_filter' }));
  });

  it('fields that are not plain names are quoted JSON-path keys; one holding " or \\ is refused with invalid_argument', () => {
    const Odd = defineRecord({
      key: 'id',
      data: {
        dotted: { type: 'string', filterable: true, storageName: 'a.b' },
        spaced: { type: 'integer', filterable: true, storageName: 'Ünï 🚀 $x' },
        quoted: { type: 'string', filterable: true, storageName: 'a"b' },
      },
      vectors: { v: { dimensions: 2 } },
    });
    expect(toQdrantVectorFilter(compileFilter(Odd, { dotted: 'x', spaced: { gt: 1 } }), Odd)).toEqual({
      must: [
        { key: '"a.b"', match: { value: 'x' } },
        { key: '"Ünï 🚀 $x"', range: { gt: 1 } },
      ],
    });
    expect(() => toQdrantVectorFilter(compileFilter(Odd, { quoted: 'x' }), Odd)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

// KM's filters as VectorStoreMemoryDbDriver hands them over: AND inside a filter, OR across the
// list, NOT as `not contains` on the tags array; the Qdrant filters km 0.x's memory DB sent.
const KmTags = defineRecord({
  key: 'id',
  data: { tags: { type: 'string[]', filterable: true } },
  vectors: { embedding: { dimensions: 2 } },
});
const has = (tag: string) => ({ tags: { contains: tag } });
const kmFilter = (filter: unknown) => toQdrantVectorFilter(compileFilter(KmTags, filter), KmTags);

describe('KM tag filters → Qdrant filters (as km 0.x sent them)', () => {
  it('every value required inside a filter: one must condition each', () => {
    expect(kmFilter({ and: [has('user:alice'), has('user:bob'), has('type:news')] })).toEqual({
      must: [
        { key: 'tags', match: { value: 'user:alice' } },
        { key: 'tags', match: { value: 'user:bob' } },
        { key: 'tags', match: { value: 'type:news' } },
      ],
    });
  });

  it('a repeated condition is sent once', () => {
    expect(kmFilter({ and: [has('a:1'), has('a:1')] })).toEqual({ must: [{ key: 'tags', match: { value: 'a:1' } }] });
  });

  it('NOT conditions: one must_not of match.any on the field (none of the values), beside the must conditions', () => {
    expect(kmFilter({ and: [has('type:news'), { not: has('user:alice') }, { not: has('user:bob') }, { not: has('user:bob') }] })).toEqual({
      must: [{ key: 'tags', match: { value: 'type:news' } }],
      must_not: [{ key: 'tags', match: { any: ['user:alice', 'user:bob'] } }],
    });
    expect(kmFilter({ and: [{ not: has('user:alice') }] })).toEqual({ must_not: [{ key: 'tags', match: { any: ['user:alice'] } }] });
  });

  it('several filters are a should of nested filters; values are data, never syntax', () => {
    const hostile = 'x"} OR {"key":"tags';
    expect(kmFilter({ or: [{ and: [has('type:news'), { not: has('flag') }] }, { and: [has(`user:${hostile}`)] }] })).toEqual({
      should: [
        { must: [{ key: 'tags', match: { value: 'type:news' } }], must_not: [{ key: 'tags', match: { any: ['flag'] } }] },
        { must: [{ key: 'tags', match: { value: `user:${hostile}` } }] },
      ],
    });
  });

  it('a negated condition that is not a string equality stays as it is in must_not', () => {
    expect(translate({ and: [{ rating: { gte: 4 } }, { not: { rating: { gt: 4.5 } } }] })).toEqual({
      must: [{ key: 'rating', range: { gte: 4 } }],
      must_not: [{ key: 'rating', range: { gt: 4.5 } }],
    });
  });
});
