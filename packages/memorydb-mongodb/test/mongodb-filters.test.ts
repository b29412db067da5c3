import { FILTER_CASES, FILTER_SEED, MATCH_ALL_FILTERS } from '@km/conformance';
import { MemoryFilters, matchesFilters, type TagCollection } from '@km/core';
import { encodeTags } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { toMongoDbFilter } from '../src/index.js';

// Shapes from MongoDB's query language and Atlas Vector Search's list of `$vectorSearch.filter`
// operators ($eq, $ne, $gt(e), $lt(e), $in, $nin, $not, $nor, $and, $or, $exists): km uses only
// $eq and $nin on the `tags` string array, joined by $and / $or, so one object serves both the
// search's pre-filter and `find`.
const EXPECTED: Record<keyof typeof FILTER_CASES & string, unknown> = {
  'single equality': { tags: { $eq: 'user:alice' } },
  'values are case-sensitive': { tags: { $eq: 'user:ALICE' } },
  'AND inside a filter': { $and: [{ tags: { $eq: 'user:bob' } }, { tags: { $eq: 'type:news' } }] },
  'several values of one key all required': { $and: [{ tags: { $eq: 'user:alice' } }, { tags: { $eq: 'user:bob' } }] },
  'OR across filters': { $or: [{ tags: { $eq: 'type:blog' } }, { tags: { $eq: 'type:sport' } }] },
  'reserved tag': { tags: { $eq: '__document_id:doc-1' } },
  'value with a single quote': { tags: { $eq: "user:o'hara" } },
  'value with a percent sign': { tags: { $eq: 'type:50%' } },
  'underscore is not a wildcard': { tags: { $eq: 'type:a_b' } },
  'value built to inject': { tags: { $eq: 'user:x; DROP TABLE t; --' } },
  'value with double quotes': { tags: { $eq: 'type:"quoted"' } },
  'unicode values': { $or: [{ tags: { $eq: 'user:Ünïcødé 🚀' } }, { tags: { $eq: 'lang:日本語' } }] },
  'NOT condition': { tags: { $nin: ['user:alice'] } },
  'AND with NOT': { $and: [{ tags: { $eq: 'type:news' } }, { tags: { $nin: ['user:alice'] } }] },
  'OR of AND-NOT and equality': {
    $or: [{ $and: [{ tags: { $eq: '__document_id:doc-3' } }, { tags: { $nin: ['type:50%'] } }] }, { tags: { $eq: 'user:ALICE' } }],
  },
};

/**
 * A tiny MQL evaluator for what km emits, with MongoDB's array semantics: `{ f: { $eq: v } }`
 * matches when an element of the array equals v; `{ f: { $nin: [...] } }` when no element is in
 * the list (or the field is missing); `$and` / `$or` over sub-filters. Anything else throws.
 */
function evaluate(filter: unknown, doc: Record<string, unknown>): boolean {
  const entries = Object.entries(filter as Record<string, unknown>);
  return entries.every(([key, condition]) => {
    if (key === '$and') return (condition as unknown[]).every((f) => evaluate(f, doc));
    if (key === '$or') return (condition as unknown[]).some((f) => evaluate(f, doc));
    if (key.startsWith('$')) throw new Error(`unexpected operator ${key}`);
    const value = doc[key];
    const elements = Array.isArray(value) ? value : value === undefined ? [] : [value];
    const ops = Object.entries(condition as Record<string, unknown>);
    return ops.every(([op, operand]) => {
      if (op === '$eq') return elements.some((e) => e === operand);
      if (op === '$in') return elements.some((e) => (operand as unknown[]).includes(e));
      if (op === '$nin') return !elements.some((e) => (operand as unknown[]).includes(e));
      throw new Error(`unexpected operator ${op}`);
    });
  });
}

const docs = Object.entries(FILTER_SEED).map(([id, tags]: [string, TagCollection]) => ({ _id: id, tags: encodeTags(tags), raw: tags }));

describe('toMongoDbFilter', () => {
  it('no filter, an empty list or an empty filter match everything (no filter at all)', () => {
    for (const filters of MATCH_ALL_FILTERS) expect(toMongoDbFilter(filters)).toBeUndefined();
  });

  for (const [name, { filters }] of Object.entries(FILTER_CASES)) {
    it(`${name}: the expected filter, matching what core's oracle matches on the seed`, () => {
      const filter = toMongoDbFilter(filters);
      expect(filter).toEqual(EXPECTED[name]);
      const found = docs.filter((d) => evaluate(filter, d)).map((d) => d._id);
      const oracle = docs.filter((d) => matchesFilters(d.raw, filters)).map((d) => d._id);
      expect(found).toEqual(oracle);
    });
  }

  it('every FILTER_CASES entry has an expected shape here', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(FILTER_CASES).sort());
  });

  it('values are data: operators, $where and JSON in a value stay the string operand of $eq / $nin', () => {
    const filter = toMongoDbFilter([MemoryFilters.byTag('user', '{"$gt":""}').byTag('$where', 'sleep(1000)').notTag('x', '$ne')]);
    expect(filter).toEqual({
      $and: [{ tags: { $eq: 'user:{"$gt":""}' } }, { tags: { $eq: '$where:sleep(1000)' } }, { tags: { $nin: ['x:$ne'] } }],
    });
    // A record holding exactly that string matches; one with any other tag does not.
    expect(evaluate(toMongoDbFilter([MemoryFilters.byTag('user', '{"$gt":""}')]), { tags: ['user:{"$gt":""}'] })).toBe(true);
    expect(evaluate(toMongoDbFilter([MemoryFilters.byTag('user', '{"$gt":""}')]), { tags: ['user:zzz'] })).toBe(false);
  });

  it('a null value matches the bare key; repeated conditions are sent once', () => {
    expect(toMongoDbFilter([MemoryFilters.byTag('flag', null)])).toEqual({ tags: { $eq: 'flag' } });
    expect(toMongoDbFilter([MemoryFilters.byTag('a', '1').byTag('a', '1').notTag('b', '2').notTag('b', '2')])).toEqual({
      $and: [{ tags: { $eq: 'a:1' } }, { tags: { $nin: ['b:2'] } }],
    });
  });

  it('several NOT conditions are one $nin: none of the values may be present', () => {
    const filter = toMongoDbFilter([MemoryFilters.notTag('user', 'alice').notTag('user', 'bob')]);
    expect(filter).toEqual({ tags: { $nin: ['user:alice', 'user:bob'] } });
    expect(evaluate(filter, { tags: ['user:carol'] })).toBe(true);
    expect(evaluate(filter, { tags: ['user:carol', 'user:bob'] })).toBe(false);
    expect(evaluate(filter, { tags: [] })).toBe(true);
  });
});
