import type { RecordDefinition, VectorStoreFilter } from '@km/core';
import { compileFilter, type FilterNode, matchesFilter, type StorageRecord } from '@km/core/connector';
import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { toVectorDocument } from '../src/vector-store/mongodb-vector-documents.js';
import { MATCH_NOTHING, toMongoVectorFilter } from '../src/vector-store/mongodb-vector-filter.js';
import { Hotel } from './vector-store-fixtures.js';

// The translated filters, evaluated with MongoDB's documented query semantics (an array matches
// when an element does; $ne and $nor match documents without the field; comparisons across
// types are false), select the same records as core's reference evaluator. This checks the
// translation's logic, not Atlas itself (that is describeVectorStore's job against a real server).

/** MQL as MongoDB documents it, for the operators the translation emits. */
function mql(filter: Document, doc: Document): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Document[]).every((f) => mql(f, doc));
    if (key === '$or') return (condition as Document[]).some((f) => mql(f, doc));
    if (key === '$nor') return !(condition as Document[]).some((f) => mql(f, doc));
    const stored = doc[key];
    const values = Array.isArray(stored) ? stored : [stored];
    return Object.entries(condition as Document).every(([op, operand]) => {
      if (op === '$ne') return !values.some((v) => same(v, operand));
      if (op === '$eq') return values.some((v) => same(v, operand));
      if (op === '$in') return values.some((v) => (operand as unknown[]).some((o) => same(v, o)));
      return values.some((v) => {
        const order = compare(v, operand);
        if (order === undefined) return false;
        return { $gt: order > 0, $gte: order >= 0, $lt: order < 0, $lte: order <= 0 }[op as '$gt'];
      });
    });
  });
}
const bracket = (v: unknown) => (v instanceof Date ? 'date' : typeof v);
function compare(a: unknown, b: unknown): number | undefined {
  if (a === null || a === undefined || bracket(a) !== bracket(b)) return undefined;
  const x = a instanceof Date ? a.getTime() : (a as number | string | boolean);
  const y = b instanceof Date ? b.getTime() : (b as number | string | boolean);
  return x < y ? -1 : x > y ? 1 : 0;
}
const same = (a: unknown, b: unknown) => compare(a, b) === 0;

const day = (d: number) => new Date(Date.UTC(2024, 0, d));
const records: StorageRecord[] = [
  {
    hotelId: 'a',
    'hotel name': 'Sea',
    rating: 4.5,
    rooms: 10,
    pets: true,
    opened: day(1),
    tags: ['pool', 'spa'],
    floors: [1, 2],
    description: null,
  },
  { hotelId: 'b', 'hotel name': 'Mill', rating: 3, rooms: null, pets: false, opened: day(5), tags: [], floors: [3], description: 'x' },
  { hotelId: 'c', 'hotel name': 'sea', rating: null, rooms: 2, pets: null, opened: null, tags: ['spa'], floors: null, description: null },
  { hotelId: 'd', 'hotel name': "O'Hara", rating: -1, rooms: 0, pets: true, opened: day(9), tags: null, floors: [], description: null },
  { hotelId: 'e', 'hotel name': '', rating: 4.5, rooms: 10, pets: false, opened: day(5), tags: ['pool'], floors: [2.5], description: null },
].map((r) => ({ ...r, embedding: new Float32Array([1, 0, 0]), dotVector: null, l2Vector: null }));

const filters: Array<VectorStoreFilter<Record<string, unknown>>> = [
  { name: 'Sea' },
  { name: { ne: 'Sea' } },
  { name: { in: ['Sea', "O'Hara", 'nope'] } },
  { name: '' },
  { hotelId: 'c' },
  { hotelId: { ne: 'c' } },
  { hotelId: { in: ['a', 'e'] } },
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
  { tags: { contains: 'nope' } },
  { floors: { contains: 2 } },
  { name: { in: [] } },
  { and: [] },
  { or: [] },
  { not: { pets: true } },
  { not: { rating: { gt: 0 } } },
  { not: { or: [] } },
  { or: [{ rating: { gte: 4 } }, { tags: { contains: 'spa' } }] },
  { and: [{ not: { name: 'Sea' } }, { or: [{ pets: false }, { rooms: { in: [] } }] }] },
  { not: { and: [{ pets: true }, { not: { floors: { contains: 1 } } }] } },
  { rating: 4.5, tags: { contains: 'pool' }, pets: { ne: false } },
];

const definition = Hotel as unknown as RecordDefinition;
const matching = (node: FilterNode | undefined, evaluate: (r: StorageRecord) => boolean) =>
  node === undefined ? records.map((r) => r.hotelId) : records.filter(evaluate).map((r) => r.hotelId);

describe('translated filters select what the reference evaluator selects', () => {
  for (const filter of filters) {
    it(JSON.stringify(filter), () => {
      const node = compileFilter(definition, filter);
      const translated = toMongoVectorFilter(node);
      const expected = matching(node, (r) => matchesFilter(node!, r));
      const actual =
        translated === MATCH_NOTHING ? [] : records.filter((r) => mql(translated, toVectorDocument(definition, r))).map((r) => r.hotelId);
      expect(actual).toEqual(expected);
    });
  }
});
