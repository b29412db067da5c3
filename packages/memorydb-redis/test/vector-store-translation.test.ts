import type { FilterNode } from '@km/core/connector';
import { vectorScore } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { MATCH_NOTHING, toRedisVectorQuery } from '../src/vector-store/redis-vector-filter.js';
import { decodeTagValue, encodeTagValue, fromVectorHash, toVectorHash } from '../src/vector-store/redis-vector-hash.js';
import { attributeNames, createCollectionCommand } from '../src/vector-store/redis-vector-schema.js';
import { scoreFromRedisDistance } from '../src/vector-store/redis-vector-scores.js';
import { Counter, Hotel, property } from './vector-store-fixtures.js';

// Pure translation of the Redis vector store: schema, filters, hashes and scores. Whether the
// queries select the right records on a real server is for describeVectorStore
// (tests-integration/test/vector-store-redis.test.ts).
const attributes = attributeNames(Hotel);
const q = (node: FilterNode | undefined) => toRedisVectorQuery(node, attributes);
const p = (name: string) => property(Hotel, name);

describe('schema', () => {
  it('indexes the key and filterable data as TAG or NUMERIC, aliases names that are no identifiers, one VECTOR per vector with its metric', () => {
    const command = createCollectionCommand('kmvs-hotels', 'kmvs-hotels:', Hotel, {
      vectorAlgorithm: 'hnsw',
      hnsw: { m: 16 },
    });
    const tag = ['TAG', 'SEPARATOR', ',', 'CASESENSITIVE'];
    expect(command).toEqual([
      'FT.CREATE',
      'kmvs-hotels',
      'ON',
      'HASH',
      'PREFIX',
      '1',
      'kmvs-hotels:',
      'SCHEMA',
      'hotelId',
      ...tag,
      'hotel name',
      'AS',
      '__km1',
      ...tag,
      'rating',
      'NUMERIC',
      'rooms',
      'NUMERIC',
      'pets',
      ...tag,
      'opened',
      'NUMERIC',
      'tags',
      ...tag,
      'floors',
      ...tag,
      'embedding',
      'VECTOR',
      'HNSW',
      '8',
      'TYPE',
      'FLOAT32',
      'DIM',
      '3',
      'DISTANCE_METRIC',
      'COSINE',
      'M',
      '16',
      'dotVector',
      'VECTOR',
      'HNSW',
      '8',
      'TYPE',
      'FLOAT32',
      'DIM',
      '2',
      'DISTANCE_METRIC',
      'IP',
      'M',
      '16',
      'l2Vector',
      'VECTOR',
      'HNSW',
      '8',
      'TYPE',
      'FLOAT32',
      'DIM',
      '2',
      'DISTANCE_METRIC',
      'L2',
      'M',
      '16',
    ]);
  });

  it('an integer key is NUMERIC under its storage name; FLAT vectors take no HNSW parameters', () => {
    const command = createCollectionCommand('c', 'c:', Counter, { vectorAlgorithm: 'flat', hnsw: { m: 16 } });
    expect(command.slice(8)).toEqual([
      'counter_id',
      'NUMERIC',
      'label',
      'TAG',
      'SEPARATOR',
      ',',
      'CASESENSITIVE',
      'v',
      'VECTOR',
      'FLAT',
      '6',
      'TYPE',
      'FLOAT32',
      'DIM',
      '2',
      'DISTANCE_METRIC',
      'L2',
    ]);
  });
});

describe('filters', () => {
  it('no filter and and: [] match everything; in: [] and or: [] match nothing (the search is not sent)', () => {
    expect(q(undefined)).toBe('*');
    expect(q({ op: 'and', nodes: [] })).toBe('*');
    expect(q({ op: 'or', nodes: [] })).toBe(MATCH_NOTHING);
    expect(q({ op: 'in', property: p('name'), values: [] })).toBe(MATCH_NOTHING);
    expect(q({ op: 'not', node: { op: 'or', nodes: [] } })).toBe('*');
    expect(
      q({
        op: 'and',
        nodes: [
          { op: 'eq', property: p('pets'), value: true },
          { op: 'or', nodes: [] },
        ],
      }),
    ).toBe(MATCH_NOTHING);
    expect(
      q({
        op: 'or',
        nodes: [
          { op: 'eq', property: p('pets'), value: true },
          { op: 'and', nodes: [] },
        ],
      }),
    ).toBe('*');
  });

  it('string equality matches the stored encoding, escaped, so quotes, braces, pipes and spaces stay one literal value', () => {
    expect(q({ op: 'eq', property: p('name'), value: 'Sea View, Nice' })).toBe('@__km1:{Sea\\%20View\\%2C\\%20Nice}');
    expect(q({ op: 'eq', property: p('name'), value: 'x} | @rating:[0 +inf] {' })).toBe(
      '@__km1:{x\\}\\%20\\|\\%20\\@rating\\:\\[0\\%20\\+inf\\]\\%20\\{}',
    );
    expect(q({ op: 'eq', property: p('name'), value: '' })).toBe('@__km1:{\\%}');
    expect(q({ op: 'eq', property: p('hotelId'), value: 'h-1' })).toBe('@hotelId:{h\\-1}');
  });

  it('numbers, integers and dates are NUMERIC ranges (dates as epoch ms, exclusive bounds with "(")', () => {
    const opened = new Date('2024-05-01T00:00:00.000Z');
    expect(q({ op: 'eq', property: p('rating'), value: 4.5 })).toBe('@rating:[4.5 4.5]');
    expect(q({ op: 'gt', property: p('rating'), value: -1 })).toBe('@rating:[(-1 +inf]');
    expect(q({ op: 'gte', property: p('rooms'), value: 10 })).toBe('@rooms:[10 +inf]');
    expect(q({ op: 'lt', property: p('opened'), value: opened })).toBe(`@opened:[-inf (${opened.getTime()}]`);
    expect(q({ op: 'lte', property: p('rating'), value: -0 })).toBe('@rating:[-inf 0]');
    expect(q({ op: 'in', property: p('rooms'), values: [1, 2] })).toBe('(@rooms:[1 1] | @rooms:[2 2])');
    expect(property(Counter, 'id')).toMatchObject({ storageName: 'counter_id' });
    expect(toRedisVectorQuery({ op: 'gt', property: property(Counter, 'id'), value: 3 }, attributeNames(Counter))).toBe(
      '@counter_id:[(3 +inf]',
    );
  });

  it('booleans and tag lists: eq and contains are tag matches, in an OR of tags; number[] elements as their text', () => {
    expect(q({ op: 'eq', property: p('pets'), value: false })).toBe('@pets:{false}');
    expect(q({ op: 'contains', property: p('tags'), value: 'sea view' })).toBe('@tags:{sea\\%20view}');
    expect(q({ op: 'contains', property: p('floors'), value: 2.5 })).toBe('@floors:{2\\.5}');
    expect(q({ op: 'in', property: p('name'), values: ['a', 'b c'] })).toBe('@__km1:{a | b\\%20c}');
  });

  it('ne and not are complements (-…), and is juxtaposition, or is |', () => {
    expect(q({ op: 'ne', property: p('name'), value: 'a' })).toBe('-@__km1:{a}');
    expect(
      q({
        op: 'or',
        nodes: [
          {
            op: 'and',
            nodes: [
              { op: 'gte', property: p('rating'), value: 4 },
              { op: 'contains', property: p('tags'), value: 'pool' },
            ],
          },
          { op: 'not', node: { op: 'eq', property: p('pets'), value: true } },
        ],
      }),
    ).toBe('((@rating:[4 +inf] @tags:{pool}) | -@pets:{true})');
  });
});

describe('hashes', () => {
  it('round-trips every data type; null values are left out; strings and string[] in the reversible tag encoding', () => {
    const opened = new Date('2024-05-01T10:20:30.456Z');
    const record = {
      hotelId: 'h1',
      'hotel name': 'Sea View, Nice',
      rating: 4.5,
      rooms: 12,
      pets: false,
      opened,
      tags: ['pool', '', 'a,b'],
      floors: [1, 2.5],
      description: null,
      embedding: new Float32Array([0.5, -1, 2]),
      dotVector: null,
      l2Vector: new Float32Array([3, 4]),
    };
    const hash = toVectorHash(Hotel, record);
    expect(Object.keys(hash).sort()).toEqual(
      ['embedding', 'floors', 'hotel name', 'hotelId', 'l2Vector', 'opened', 'pets', 'rating', 'rooms', 'tags'].sort(),
    );
    expect(hash).toMatchObject({
      hotelId: 'h1',
      'hotel name': 'Sea%20View%2C%20Nice',
      rating: '4.5',
      pets: 'false',
      opened: String(opened.getTime()),
      tags: 'pool,%,a%2Cb',
      floors: '1,2.5',
    });
    const back = fromVectorHash(Hotel, 'h1', hash, true);
    expect(back).toEqual({ ...record, dotVector: null });
    expect(fromVectorHash(Hotel, 'h1', hash, false)).not.toHaveProperty('embedding');
  });

  it('an empty list and a list of one empty string stay apart', () => {
    const base = { hotelId: 'h', 'hotel name': 'n', embedding: new Float32Array(3) };
    for (const tags of [[], ['']]) {
      expect(fromVectorHash(Hotel, 'h', toVectorHash(Hotel, { ...base, tags }), false).tags).toEqual(tags);
    }
    expect(encodeTagValue('%')).toBe('%25');
    expect(decodeTagValue(encodeTagValue('%'))).toBe('%');
  });
});

describe('scores', () => {
  const a = new Float32Array([1, 2, 0]);
  const b = new Float32Array([2, 0.5, 1]);
  const dot = 1 * 2 + 2 * 0.5;
  const cos = dot / (Math.hypot(1, 2, 0) * Math.hypot(2, 0.5, 1));
  const squaredL2 = 1 + 1.5 ** 2 + 1;

  it('turns what RediSearch reports (COSINE 1 - cos, IP 1 - dot, L2 squared distance) into the documented convention', () => {
    expect(scoreFromRedisDistance('cosine', 1 - cos)).toBeCloseTo(vectorScore('cosine', a, b), 6);
    expect(scoreFromRedisDistance('dot', 1 - dot)).toBeCloseTo(vectorScore('dot', a, b), 6);
    expect(scoreFromRedisDistance('euclidean', squaredL2)).toBeCloseTo(vectorScore('euclidean', a, b), 6);
  });
});
