import type { RecordDefinition, VectorStoreFilter } from '@km/core';
import { compileFilter, matchesFilter, type StorageRecord } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { documentKeyOf } from '../src/document-key.js';
import { type AzureVectorDocument, toAzureDocument } from '../src/vector-store/azure-vector-documents.js';
import { MATCH_NOTHING, toODataVectorFilter } from '../src/vector-store/azure-vector-filter.js';
import { Hotel } from './vector-store-fixtures.js';

// The translated OData filters, read by a small reader of the subset they use (comparisons,
// `search.in`, `any` lambdas (with `eq` or `search.in`), `not`, `and`, `or`; string literals with doubled quotes) and
// evaluated on the documents with OData's null semantics (a comparison with null is false, `ne`
// true), select the same records as core's reference evaluator. This checks the translation and
// its quoting, not the service (that is describeVectorStore's job against a real service).
type Matcher = (doc: AzureVectorDocument) => boolean;
type Literal = string | number | boolean | Date;

function parseFilter(filter: string): Matcher {
  let at = 0;
  const take = (pattern: RegExp): string => {
    const match = pattern.exec(filter.slice(at));
    if (!match || match.index !== 0) throw new Error(`expected ${pattern} at ${at} in ${filter}`);
    at += match[0].length;
    return match[0];
  };
  const literal = (): Literal => {
    if (filter[at] === "'") {
      let text = '';
      at += 1;
      for (;;) {
        const c = filter[at++];
        if (c === undefined) throw new Error(`unterminated string in ${filter}`);
        if (c === "'" && filter[at] === "'") {
          text += "'";
          at += 1;
        } else if (c === "'") return text;
        else text += c;
      }
    }
    const token = take(/^[^\s),]+/);
    if (token === 'true' || token === 'false') return token === 'true';
    if (/^\d{4}-\d{2}-\d{2}T/.test(token)) return new Date(token);
    if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(token)) throw new Error(`bad literal ${token} in ${filter}`);
    return Number(token);
  };
  const compare = (a: unknown, op: string, b: Literal): boolean => {
    if (a === null || a === undefined) return op === 'ne';
    const x =
      a instanceof Date ? a.getTime() : typeof a === 'string' && b instanceof Date ? Date.parse(a) : (a as number | string | boolean);
    const y = b instanceof Date ? b.getTime() : b;
    return { eq: x === y, ne: x !== y, gt: x > y, ge: x >= y, lt: x < y, le: x <= y }[op]!;
  };
  const expression = (): Matcher => {
    if (filter.startsWith('not ', at)) {
      at += 4;
      const inner = expression();
      return (d) => !inner(d);
    }
    if (filter[at] === '(') {
      at += 1;
      const group = sequence();
      take(/^\)/);
      return group;
    }
    if (filter.startsWith('search.in(', at)) {
      at += 'search.in('.length;
      const field = take(/^[A-Za-z]\w*/);
      take(/^, /);
      const values = literal() as string;
      take(/^, /);
      const delimiter = literal() as string;
      take(/^\)/);
      const set = values.split(delimiter);
      return (d) => typeof d[field] === 'string' && set.includes(d[field] as string);
    }
    const field = take(/^[A-Za-z]\w*/);
    if (filter.startsWith('/any(t: search.in(t, ', at)) {
      at += '/any(t: search.in(t, '.length;
      const values = literal() as string;
      take(/^, /);
      const set = values.split(literal() as string);
      take(/^\)\)/);
      return (d) => Array.isArray(d[field]) && (d[field] as unknown[]).some((e) => typeof e === 'string' && set.includes(e));
    }
    if (filter.startsWith('/any(t: t eq ', at)) {
      at += '/any(t: t eq '.length;
      const value = literal();
      take(/^\)/);
      return (d) => Array.isArray(d[field]) && (d[field] as unknown[]).some((e) => compare(e, 'eq', value));
    }
    const op = take(/^ (eq|ne|gt|ge|lt|le) /).trim();
    const value = literal();
    return (d) => compare(d[field], op, value);
  };
  /** Expressions joined by one of `and` / `or` (mixing them needs parentheses). */
  const sequence = (): Matcher => {
    const parts = [expression()];
    let joiner: string | undefined;
    while (filter.startsWith(' and ', at) || filter.startsWith(' or ', at)) {
      const next = filter.startsWith(' and ', at) ? 'and' : 'or';
      if (joiner && joiner !== next) throw new Error(`mixed and/or without parentheses in ${filter}`);
      joiner = next;
      at += next.length + 2;
      parts.push(expression());
    }
    return joiner === 'or' ? (d) => parts.some((p) => p(d)) : (d) => parts.every((p) => p(d));
  };
  const matcher = sequence();
  if (at !== filter.length) throw new Error(`unread "${filter.slice(at)}" in ${filter}`);
  return matcher;
}

const definition = Hotel as unknown as RecordDefinition;
const day = (d: number) => new Date(Date.UTC(2024, 0, d));
const records: StorageRecord[] = [
  {
    hotelId: 'a',
    hotel_name: "Sea' or true or 'x",
    rating: 4.5,
    rooms: 10,
    pets: true,
    opened: day(1),
    tags: ['pool', 'spa'],
    floors: [1, 2],
  },
  { hotelId: 'b|2', hotel_name: 'Mill', rating: 3, rooms: null, pets: false, opened: day(5), tags: [], floors: [3] },
  { hotelId: 'c', hotel_name: 'mill', rating: null, rooms: 2, pets: null, opened: null, tags: ["it's"], floors: null },
  { hotelId: "d'1", hotel_name: ' padded ', rating: -1, rooms: 0, pets: true, opened: day(9), tags: null, floors: [] },
  { hotelId: 'e', hotel_name: '', rating: 4.5, rooms: 10, pets: false, opened: day(5), tags: ['pool'], floors: [2.5] },
].map((r) => ({ ...r, description: null, embedding: new Float32Array([1, 0, 0]), dotVector: null, l2Vector: null }));

const filters: Array<VectorStoreFilter<Record<string, unknown>>> = [
  { name: "Sea' or true or 'x" },
  { name: { ne: 'Mill' } },
  { name: { in: ['Mill', ' padded ', 'nope'] } },
  { name: { in: ['Mill', 'mill'] } },
  { name: '' },
  { hotelId: "d'1" },
  { hotelId: { ne: 'c' } },
  { hotelId: { in: ['a', 'b|2'] } },
  { rating: { gte: 3 } },
  { rating: { lt: 4.5 } },
  { rating: { ne: 4.5 } },
  { rooms: { gt: 0, lte: 10 } },
  { rooms: { in: [0, 2] } },
  { pets: true },
  { pets: { ne: true } },
  { opened: { gte: day(5) } },
  { opened: { lt: day(5).toISOString() } },
  { opened: { in: [day(1), day(9)] } },
  { tags: { contains: 'spa' } },
  { tags: { contains: "it's" } },
  { floors: { contains: 2.5 } },
  { name: { in: [] } },
  { and: [] },
  { or: [] },
  { not: { pets: true } },
  { not: { rating: { gt: 0 } } },
  { or: [{ rating: { gte: 4 } }, { tags: { contains: 'spa' } }] },
  { and: [{ not: { name: 'Mill' } }, { or: [{ pets: false }, { rooms: { in: [] } }] }] },
  { not: { and: [{ pets: true }, { not: { floors: { contains: 1 } } }] } },
  { rating: 4.5, tags: { contains: 'pool' }, pets: { ne: false } },
];

describe('translated OData filters select what the reference evaluator selects', () => {
  it('the reader reads keys as the index holds them', () => {
    expect(toAzureDocument(definition, records[0]!).hotelId).toBe(documentKeyOf('a'));
  });
  for (const filter of filters) {
    it(JSON.stringify(filter), () => {
      const node = compileFilter(definition, filter);
      const odata = toODataVectorFilter(node);
      const expected = records.filter((r) => node === undefined || matchesFilter(node, r)).map((r) => r.hotelId);
      const matcher = odata === MATCH_NOTHING ? () => false : odata === undefined ? () => true : parseFilter(odata);
      const actual = records.filter((r) => matcher(toAzureDocument(definition, r))).map((r) => r.hotelId);
      expect(actual).toEqual(expected);
    });
  }
});
