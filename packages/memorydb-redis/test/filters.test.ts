import { FILTER_CASES, MATCH_ALL_FILTERS } from '@km/conformance';
import { type MemoryFilter, MemoryFilters, matchesFilters, type TagCollection } from '@km/core';
import { compileFilter, encodeTag, KmRecordLayout } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { decodeIndexedTag, escapeQueryValue, MATCH_NOTHING, toRedisVectorQuery } from '../src/index.js';
import { attributeNames } from '../src/vector-store/redis-vector-schema.js';
import { matches, parseQuery } from './fixtures/fake-query-engine.js';

// KM's filters on Redis: core's VectorStoreMemoryDbDriver makes them typed filters on the
// layout's `tags` array (`contains`, `not`, `and` inside one filter, `or` across the list) and
// the package's one translator, toRedisVectorQuery, writes the query. Query syntax from the
// Redis Query Engine reference (DIALECT 2): terms side by side are an intersection, `|` a union,
// `-` a negation, `@field:{tag}` a tag match in which punctuation and spaces are escaped with a
// backslash.
const definition = new KmRecordLayout({ storageNames: { content: false } }).definition(3);
const attributes = attributeNames(definition);

/** The query of KM's filters, built as VectorStoreMemoryDbDriver builds the typed filter. */
function toRedisQuery(filters: readonly MemoryFilter[] | undefined): string {
  if (!filters || filters.length === 0) return toRedisVectorQuery(undefined, attributes) as string;
  const either = filters.map((f) => ({
    and: f.conditions.map((c) => {
      const has = { tags: { contains: encodeTag(c.key, c.value) } };
      return c.negated ? { not: has } : has;
    }),
  }));
  const query = toRedisVectorQuery(compileFilter(definition, either.length === 1 ? either[0] : { or: either }), attributes);
  if (query === MATCH_NOTHING) throw new Error('matches nothing');
  return query;
}

const EXPECTED: Record<keyof typeof FILTER_CASES, string> = {
  'single equality': '@tags:{user\\:alice}',
  'values are case-sensitive': '@tags:{user\\:ALICE}',
  'AND inside a filter': '(@tags:{user\\:bob} @tags:{type\\:news})',
  'several values of one key all required': '(@tags:{user\\:alice} @tags:{user\\:bob})',
  'OR across filters': '(@tags:{type\\:blog} | @tags:{type\\:sport})',
  'reserved tag': '@tags:{__document_id\\:doc\\-1}',
  'value with a single quote': "@tags:{user\\:o\\'hara}",
  'value with a percent sign': '@tags:{type\\:50\\%25}',
  'underscore is not a wildcard': '@tags:{type\\:a_b}',
  'value built to inject': '@tags:{user\\:x\\;\\%20DROP\\%20TABLE\\%20t\\;\\%20\\-\\-}',
  'value with double quotes': '@tags:{type\\:\\"quoted\\"}',
  'unicode values': '(@tags:{user\\:Ünïcødé\\%20🚀} | @tags:{lang\\:日本語})',
  'NOT condition': '-@tags:{user\\:alice}',
  'AND with NOT': '(@tags:{type\\:news} -@tags:{user\\:alice})',
  'OR of AND-NOT and equality': '((@tags:{__document_id\\:doc\\-3} -@tags:{type\\:50\\%25}) | @tags:{user\\:ALICE})',
};

/**
 * A small reader of the query syntax km writes: every `@tags:{...}` clause is replaced by `T`
 * (its tag unescaped and decoded into `tags`), so what is left is the query's structure.
 */
function readQuery(query: string): { skeleton: string; tags: string[] } {
  const tags: string[] = [];
  let skeleton = '';
  for (let i = 0; i < query.length; ) {
    if (query.startsWith('@tags:{', i)) {
      let value = '';
      i += '@tags:{'.length;
      while (query[i] !== '}') {
        if (i >= query.length) throw new Error(`unterminated tag in ${query}`);
        if (query[i] === '\\') i++;
        value += query[i];
        i++;
      }
      i++;
      tags.push(decodeIndexedTag(value));
      skeleton += 'T';
    } else {
      skeleton += query[i];
      i++;
    }
  }
  return { skeleton, tags };
}

/** Tag collections to run every query on: each case's tags, alone and together, and none. */
function samples(filters: readonly MemoryFilter[]): TagCollection[] {
  const pairs = filters.flatMap((f) => f.conditions.map((c) => [c.key, c.value] as const));
  const out: TagCollection[] = [{}];
  for (let mask = 1; mask < 2 ** pairs.length; mask++) {
    const tags: Record<string, Array<string | null>> = {};
    pairs.forEach(([k, v], i) => {
      if (mask & (2 ** i)) (tags[k] ??= []).push(v);
    });
    out.push(tags);
  }
  return out;
}

/** Whether a record with these tags matches the query, read as the fake Query Engine reads it (stored tags encoded). */
function queryMatches(query: string, tags: TagCollection): boolean {
  const held = new Set(
    Object.entries(tags).flatMap(([k, vs]) =>
      vs.map((v) => encodeTag(k, v).replace(/[%,\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)),
    ),
  );
  return matches(parseQuery(query), () => held);
}

describe('KM filters through the typed translator', () => {
  it('no filter, an empty list or an empty filter match everything (*)', () => {
    for (const filters of MATCH_ALL_FILTERS) expect(toRedisQuery(filters)).toBe('*');
  });

  for (const [name, { filters }] of Object.entries(FILTER_CASES)) {
    it(`${name}: ${EXPECTED[name]}`, () => {
      const query = toRedisQuery(filters);
      expect(query).toBe(EXPECTED[name]);
      // Read back, the query holds exactly the filter's tags, in a structure of T, -T, ( ) and |.
      const { skeleton, tags } = readQuery(query);
      expect(tags).toEqual(filters.flatMap((f) => f.conditions.map((c) => (c.value === null ? c.key : `${c.key}:${c.value}`))));
      expect(skeleton).toMatch(/^[T\-() |]+$/);
      // Same semantics as core's in-memory matcher, on every combination of the case's tags.
      for (const tags of samples(filters)) expect(queryMatches(query, tags), JSON.stringify(tags)).toBe(matchesFilters(tags, filters));
    });
  }

  it('a null value matches the bare key; repeated conditions change nothing', () => {
    expect(toRedisQuery([MemoryFilters.byTag('a', '1').byTag('a', '1').byTag('flag', null)])).toBe(
      '(@tags:{a\\:1} @tags:{a\\:1} @tags:{flag})',
    );
  });
});

describe('escaping', () => {
  const hostile = [
    'a-b',
    'k:v:w',
    '{x}',
    'a|b',
    'two words',
    ' padded ',
    'it\'s "quoted"',
    'back\\slash\\',
    'star*',
    '@tags',
    '$vec',
    'Ünïcødé 🚀 日本語',
    '}) | @tags:{x',
    '}=>[KNN 1000 @embedding $vec]',
    'a,b, c',
    'tab\there\nnewline',
    '%41 is not A',
    '~!#^&()[]<>;=+?/`.',
  ];

  it('every ASCII character but letters, digits and _ is escaped; nothing else is', () => {
    expect(escapeQueryValue('aZ9_-:{}|')).toBe('aZ9_\\-\\:\\{\\}\\|');
    expect(escapeQueryValue('日本 é')).toBe('日本\\ é');
    for (const value of hostile) {
      const escaped = escapeQueryValue(value);
      // No unescaped punctuation or whitespace is left.
      expect(escaped.replace(/\\[\s\S]/g, '')).toMatch(/^[A-Za-z0-9_\u0080-\u{10ffff}]*$/u);
    }
  });

  it('each hostile value comes back exactly from the query, which keeps its shape (one tag, no operator added)', () => {
    for (const value of hostile) {
      const query = toRedisQuery([MemoryFilters.byTag('user', value).notTag('type', value)]);
      const { skeleton, tags } = readQuery(query);
      expect(tags, value).toEqual([`user:${value}`, `type:${value}`]);
      expect(skeleton, value).toBe('(T -T)');
    }
  });
});
