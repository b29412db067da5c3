import type { RecordDefinition, VectorStoreFilter } from '@km/core';
import { compileFilter, matchesFilter, type StorageRecord } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { MATCH_NOTHING, toRedisVectorQuery } from '../src/vector-store/redis-vector-filter.js';
import { toVectorHash } from '../src/vector-store/redis-vector-hash.js';
import { attributeNames, indexKind } from '../src/vector-store/redis-vector-schema.js';
import { Hotel } from './vector-store-fixtures.js';

// The translated queries, read by a small reader of the query syntax they use (DIALECT 2:
// `@a:{t1 | t2}` tag sets with backslash escapes, `@a:[lo hi]` ranges with `(` for exclusive
// bounds, `-` complement, juxtaposition as AND, `|` as OR) and evaluated on the hashes as the
// query engine indexes them (TAG values split on `,`, case-sensitive; NUMERIC values parsed),
// select the same records as core's reference evaluator. This checks the translation and its
// escaping, not RediSearch itself (that is describeVectorStore's job against a real server).
type Hash = Record<string, string | Buffer>;
type Matcher = (hash: Hash) => boolean;

function parseQuery(query: string, fieldOf: (attribute: string) => { field: string; kind: 'TAG' | 'NUMERIC' }): Matcher {
  let at = 0;
  const expect = (text: string) => {
    if (!query.startsWith(text, at)) throw new Error(`expected "${text}" at ${at} in ${query}`);
    at += text.length;
  };
  const union = (): Matcher => {
    const parts = [intersection()];
    while (query.startsWith(' | ', at)) {
      at += 3;
      parts.push(intersection());
    }
    return (h) => parts.some((p) => p(h));
  };
  const intersection = (): Matcher => {
    const parts = [unit()];
    while (query[at] === ' ' && !query.startsWith(' | ', at)) {
      at += 1;
      parts.push(unit());
    }
    return (h) => parts.every((p) => p(h));
  };
  const unit = (): Matcher => {
    if (query[at] === '-') {
      at += 1;
      const inner = unit();
      return (h) => !inner(h);
    }
    if (query[at] === '(') {
      at += 1;
      const inner = union();
      expect(')');
      return inner;
    }
    expect('@');
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(at))![0];
    at += name.length;
    expect(':');
    const { field, kind } = fieldOf(name);
    if (query[at] === '{') {
      if (kind !== 'TAG') throw new Error(`tag query on ${kind} ${name}`);
      at += 1;
      const tags: string[] = [];
      let tag = '';
      for (;;) {
        const c = query[at++];
        if (c === undefined) throw new Error(`unterminated tags in ${query}`);
        if (c === '\\') tag += query[at++];
        else if (c === '}') break;
        else if (query.startsWith(' | ', at - 1)) {
          tags.push(tag);
          tag = '';
          at += 2;
        } else if (/[\s{|@:[\]()"'-]/.test(c)) throw new Error(`unescaped "${c}" in a tag of ${query}`);
        else tag += c;
      }
      tags.push(tag);
      return (h) => {
        const stored = h[field]?.toString();
        return stored !== undefined && stored.split(',').some((t) => t !== '' && tags.includes(t));
      };
    }
    if (kind !== 'NUMERIC') throw new Error(`range query on ${kind} ${name}`);
    const [, lo, hi] = /^\[(\S+) (\S+)\]/.exec(query.slice(at))!;
    at += lo!.length + hi!.length + 3;
    const bound = (text: string) => ({ exclusive: text.startsWith('('), value: Number(text.replace('(', '').replace('inf', 'Infinity')) });
    const [low, high] = [bound(lo!), bound(hi!)];
    return (h) => {
      const stored = h[field]?.toString();
      if (stored === undefined) return false;
      const v = Number(stored);
      return (low.exclusive ? v > low.value : v >= low.value) && (high.exclusive ? v < high.value : v <= high.value);
    };
  };
  if (query === '*') return () => true;
  const matcher = union();
  if (at !== query.length) throw new Error(`unread "${query.slice(at)}" in ${query}`);
  return matcher;
}

const definition = Hotel as unknown as RecordDefinition;
const attributes = attributeNames(definition);
const properties = [definition.key, ...definition.data];
const fieldOf = (attribute: string) => {
  const property = properties.find((p) => attributes.get(p.storageName) === attribute);
  if (!property || !indexKind(property)) throw new Error(`no indexed attribute ${attribute}`);
  return { field: property.storageName, kind: indexKind(property)! };
};

const day = (d: number) => new Date(Date.UTC(2024, 0, d));
const records: StorageRecord[] = [
  {
    hotelId: 'a',
    'hotel name': 'Sea View, Nice',
    rating: 4.5,
    rooms: 10,
    pets: true,
    opened: day(1),
    tags: ['pool', 'spa'],
    floors: [1, 2],
  },
  { hotelId: 'b-2', 'hotel name': 'x} | @rating:[0 +inf] {', rating: 3, rooms: null, pets: false, opened: day(5), tags: [], floors: [3] },
  { hotelId: 'c', 'hotel name': 'sea view, nice', rating: null, rooms: 2, pets: null, opened: null, tags: ['spa', ''], floors: null },
  { hotelId: 'd:1', 'hotel name': "O'Hara 100%", rating: -1, rooms: 0, pets: true, opened: day(9), tags: null, floors: [] },
  { hotelId: 'e e', 'hotel name': '', rating: 4.5, rooms: 10, pets: false, opened: day(5), tags: ['pool,bar'], floors: [2.5] },
].map((r) => ({ ...r, description: null, embedding: new Float32Array([1, 0, 0]), dotVector: null, l2Vector: null }));

const filters: Array<VectorStoreFilter<Record<string, unknown>>> = [
  { name: 'Sea View, Nice' },
  { name: 'x} | @rating:[0 +inf] {' },
  { name: { ne: 'Sea View, Nice' } },
  { name: { in: ["O'Hara 100%", '', 'nope'] } },
  { name: '' },
  { hotelId: 'b-2' },
  { hotelId: { ne: 'd:1' } },
  { hotelId: { in: ['a', 'e e'] } },
  { rating: { gte: 3 } },
  { rating: { lt: 4.5 } },
  { rating: { ne: 4.5 } },
  { rooms: { gt: 0, lte: 10 } },
  { rooms: { in: [0, 2] } },
  { pets: true },
  { pets: { ne: true } },
  { opened: { gte: day(5) } },
  { opened: { lt: day(5).toISOString() } },
  { opened: day(5) },
  { tags: { contains: 'spa' } },
  { tags: { contains: 'pool,bar' } },
  { tags: { contains: '' } },
  { floors: { contains: 2 } },
  { floors: { contains: 2.5 } },
  { name: { in: [] } },
  { and: [] },
  { or: [] },
  { not: { pets: true } },
  { not: { rating: { gt: 0 } } },
  { or: [{ rating: { gte: 4 } }, { tags: { contains: 'spa' } }] },
  { and: [{ not: { name: 'Sea View, Nice' } }, { or: [{ pets: false }, { rooms: { in: [] } }] }] },
  { not: { and: [{ pets: true }, { not: { floors: { contains: 1 } } }] } },
  { rating: 4.5, tags: { contains: 'pool' }, pets: { ne: false } },
];

describe('translated queries select what the reference evaluator selects', () => {
  for (const filter of filters) {
    it(JSON.stringify(filter), () => {
      const node = compileFilter(definition, filter);
      const query = toRedisVectorQuery(node, attributes);
      const expected = records.filter((r) => node === undefined || matchesFilter(node, r)).map((r) => r.hotelId);
      const matcher = query === MATCH_NOTHING ? () => false : parseQuery(query, fieldOf);
      const actual = records.filter((r) => matcher(toVectorHash(definition, r))).map((r) => r.hotelId);
      expect(actual).toEqual(expected);
    });
  }
});
