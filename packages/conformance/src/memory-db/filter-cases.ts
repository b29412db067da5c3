import { MemoryFilter, MemoryFilters, ReservedTags, type TagCollection } from '@km/core';

/**
 * Seed records for the filter cases: several values per key, reserved tags, and values
 * built to break naive query builders (quotes, `%`, `;`, comment markers, unicode).
 */
export const FILTER_SEED: Record<string, TagCollection> = {
  r1: { user: ['alice'], type: ['news'], [ReservedTags.documentId]: ['doc-1'] },
  r2: { user: ['bob'], type: ['news', 'sport'], [ReservedTags.documentId]: ['doc-1'] },
  r3: { user: ['alice', 'bob'], type: ['blog'], [ReservedTags.documentId]: ['doc-2'] },
  r4: { user: ["o'hara"], type: ['50%'], [ReservedTags.documentId]: ['doc-3'] },
  r5: { user: ['x; DROP TABLE t; --'], type: ['"quoted"'], [ReservedTags.documentId]: ['doc-3'] },
  r6: { user: ['Ünïcødé 🚀'], lang: ['日本語'], [ReservedTags.documentId]: ['doc-4'] },
  r7: { user: ['ALICE'], type: ['a_b'], [ReservedTags.documentId]: ['doc-5'] },
  r8: { type: ['axb'], [ReservedTags.documentId]: ['doc-6'] },
};

/** Filter cases by readable name; the oracle (core's `matchesFilters`) gives the expected ids. */
export const FILTER_CASES: Record<string, { filters: MemoryFilter[]; negated: boolean }> = {
  'single equality': { filters: [MemoryFilters.byTag('user', 'alice')], negated: false },
  'values are case-sensitive': { filters: [MemoryFilters.byTag('user', 'ALICE')], negated: false },
  'AND inside a filter': { filters: [MemoryFilters.byTag('user', 'bob').byTag('type', 'news')], negated: false },
  'several values of one key all required': { filters: [MemoryFilters.byTag('user', 'alice').byTag('user', 'bob')], negated: false },
  'OR across filters': { filters: [MemoryFilters.byTag('type', 'blog'), MemoryFilters.byTag('type', 'sport')], negated: false },
  'reserved tag': { filters: [MemoryFilters.byDocument('doc-1')], negated: false },
  'value with a single quote': { filters: [MemoryFilters.byTag('user', "o'hara")], negated: false },
  'value with a percent sign': { filters: [MemoryFilters.byTag('type', '50%')], negated: false },
  'underscore is not a wildcard': { filters: [MemoryFilters.byTag('type', 'a_b')], negated: false },
  'value built to inject': { filters: [MemoryFilters.byTag('user', 'x; DROP TABLE t; --')], negated: false },
  'value with double quotes': { filters: [MemoryFilters.byTag('type', '"quoted"')], negated: false },
  'unicode values': { filters: [MemoryFilters.byTag('user', 'Ünïcødé 🚀'), MemoryFilters.byTag('lang', '日本語')], negated: false },
  'NOT condition': { filters: [MemoryFilters.notTag('user', 'alice')], negated: true },
  'AND with NOT': { filters: [MemoryFilters.byTag('type', 'news').notTag('user', 'alice')], negated: true },
  'OR of AND-NOT and equality': {
    filters: [MemoryFilters.byDocument('doc-3').notTag('type', '50%'), MemoryFilters.byTag('user', 'ALICE')],
    negated: true,
  },
};

/**
 * Filter lists that match every record: none, an empty list, and a list holding an empty filter
 * (OR with "anything"). A connector's filter translation gives its "no filter" for each.
 *
 * ```ts
 * for (const filters of MATCH_ALL_FILTERS) expect(await db.getList(index, { filters })).toHaveLength(all.length);
 * ```
 */
export const MATCH_ALL_FILTERS: ReadonlyArray<readonly MemoryFilter[] | undefined> = [
  undefined,
  [],
  [MemoryFilters.byTag('a', 'b'), new MemoryFilter()],
];
