import { FILTER_CASES, MATCH_ALL_FILTERS } from '@km/conformance';
import { MemoryFilters } from '@km/core';
import { describe, expect, it } from 'vitest';
import { odataString, searchInDelimiter, toODataFilter } from '../src/index.js';

// Shapes from Azure AI Search's OData reference: `any` with a lambda over a string collection
// (`tags/any(t: t eq 'v')`), `not`, `and`, `or`, string literals in single quotes with each
// quote doubled, and `search.in(t, 'a|b', '|')` (equivalent to `t eq 'a' or t eq 'b'`).
const eq = (value: string) => `tags/any(t: t eq '${value.replaceAll("'", "''")}')`;

const EXPECTED: Record<keyof typeof FILTER_CASES, string> = {
  'single equality': eq('user:alice'),
  'values are case-sensitive': eq('user:ALICE'),
  'AND inside a filter': `${eq('user:bob')} and ${eq('type:news')}`,
  'several values of one key all required': `${eq('user:alice')} and ${eq('user:bob')}`,
  'OR across filters': "tags/any(t: search.in(t, 'type:blog|type:sport', '|'))",
  'reserved tag': eq('__document_id:doc-1'),
  'value with a single quote': "tags/any(t: t eq 'user:o''hara')",
  'value with a percent sign': eq('type:50%'),
  'underscore is not a wildcard': eq('type:a_b'),
  'value built to inject': eq('user:x; DROP TABLE t; --'),
  'value with double quotes': eq('type:"quoted"'),
  'unicode values': `${eq('user:Ünïcødé 🚀')} or ${eq('lang:日本語')}`,
  'NOT condition': `not ${eq('user:alice')}`,
  'AND with NOT': `${eq('type:news')} and not ${eq('user:alice')}`,
  'OR of AND-NOT and equality': `(${eq('__document_id:doc-3')} and not ${eq('type:50%')}) or ${eq('user:ALICE')}`,
};

describe('toODataFilter', () => {
  for (const [name, { filters }] of Object.entries(FILTER_CASES)) {
    it(`FILTER_CASES: ${name}`, () => {
      expect(toODataFilter(filters)).toBe(EXPECTED[name]);
    });
  }

  it('no filter, an empty list or a list holding an empty filter: no $filter at all', () => {
    for (const filters of MATCH_ALL_FILTERS) expect(toODataFilter(filters)).toBeUndefined();
  });

  it('NOT values of one key in one filter fold into one negated search.in (none of them)', () => {
    expect(toODataFilter([MemoryFilters.byTag('type', 'news').notTag('user', 'alice').notTag('user', 'bob')])).toBe(
      `${eq('type:news')} and not tags/any(t: search.in(t, 'user:alice|user:bob', '|'))`,
    );
  });

  it('filters of one equality fold per key, in place of the first; others stay as they are', () => {
    const filters = [
      MemoryFilters.byTag('user', 'a'),
      MemoryFilters.byTag('type', 'x').byTag('user', 'c'),
      MemoryFilters.byTag('user', 'b'),
      MemoryFilters.byTag('lang', 'en'),
    ];
    expect(toODataFilter(filters)).toBe(
      `tags/any(t: search.in(t, 'user:a|user:b', '|')) or (${eq('type:x')} and ${eq('user:c')}) or ${eq('lang:en')}`,
    );
  });

  it('a delimiter that a value holds is not used; when every candidate appears, values stay separate', () => {
    expect(toODataFilter([MemoryFilters.byTag('k', 'a|b'), MemoryFilters.byTag('k', 'c')])).toBe(
      "tags/any(t: search.in(t, 'k:a|b,k:c', ','))",
    );
    const all = '|,;~^#@&$!*+`';
    expect(toODataFilter([MemoryFilters.byTag('k', all), MemoryFilters.byTag('k', 'c')])).toBe(`(${eq(`k:${all}`)} or ${eq('k:c')})`);
    expect(toODataFilter([MemoryFilters.byTag('k', 'c').notTag('u', 'x').notTag('u', all)])).toBe(
      [eq('k:c'), `not ${eq('u:x')}`, `not ${eq(`u:${all}`)}`].join(' and '),
    );
  });

  it('values with leading or trailing white space are never folded (search.in might trim them)', () => {
    expect(searchInDelimiter(['k: a', 'k:b'])).toBe('|');
    expect(searchInDelimiter(['k:a ', 'k:b'])).toBeUndefined();
    expect(toODataFilter([MemoryFilters.byTag('k', 'a '), MemoryFilters.byTag('k', 'b')])).toBe(`(${eq('k:a ')} or ${eq('k:b')})`);
  });

  it('a null value is the bare key; repeated conditions are sent once', () => {
    expect(toODataFilter([MemoryFilters.byTag('flag', null).byTag('a', '1').byTag('a', '1')])).toBe(`${eq('flag')} and ${eq('a:1')}`);
  });
});

describe('OData escaping', () => {
  it('doubles single quotes and leaves everything else as it is', () => {
    expect(odataString("o'hara")).toBe("'o''hara'");
    expect(odataString("''")).toBe("''''''");
    expect(odataString('Ünïcødé 🚀 日本語 "x" \\ %')).toBe('\'Ünïcødé 🚀 日本語 "x" \\ %\'');
  });

  it("a value built to close the literal (') or true or (') stays inside one literal", () => {
    const hostile = "') or true or ('";
    const filter = toODataFilter([MemoryFilters.byTag('user', hostile)])!;
    expect(filter).toBe("tags/any(t: t eq 'user:'') or true or (''')");
    // Reading the literal back as OData does (a doubled quote is one quote) gives the value, and nothing follows it.
    const literal = /^tags\/any\(t: t eq '((?:[^']|'')*)'\)$/.exec(filter);
    expect(literal?.[1]?.replaceAll("''", "'")).toBe(`user:${hostile}`);
  });

  it('search.in lists are one literal too, quotes doubled', () => {
    expect(toODataFilter([MemoryFilters.byTag('u', "a'b"), MemoryFilters.byTag('u', "') or true or ('")])).toBe(
      "tags/any(t: search.in(t, 'u:a''b|u:'') or true or (''', '|'))",
    );
  });
});
