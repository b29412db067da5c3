import type { KeyValue, VectorStoreFilter } from '@km/core';
import type { FilterOperator } from '@km/core/connector';
import { expect } from 'vitest';
import { filterCases, filterDefinition, filterRecords } from './filter-cases.js';
import { generatedKey } from './record-values.js';
import { operatorsOf, oracleMatches } from './vector-store-oracle.js';
import { errorCodeOf, type AnyRecord, type VectorStoreCaseContext, type VectorStoreCases } from './vector-store-fixture.js';

type Filter = VectorStoreFilter<AnyRecord>;
const QUERY = [1, 0.5, 0.25, 0.5];

/** Property names a filter reads. */
function propertiesOf(filter: Filter, into = new Set<string>()): Set<string> {
  for (const [name, condition] of Object.entries(filter)) {
    if (name === 'and' || name === 'or') for (const f of condition as Filter[]) propertiesOf(f, into);
    else if (name === 'not') propertiesOf(condition as Filter, into);
    else into.add(name);
  }
  return into;
}

/** The filter fixture, created and written. */
async function seeded(t: VectorStoreCaseContext) {
  const definition = filterDefinition(t.capabilities);
  const records = filterRecords(definition);
  const collection = t.collection(definition);
  await collection.ensureExists();
  await collection.upsert(records);
  return { definition, records, collection };
}

/** A filter of each operator alone, for the unsupported_filter case. */
const ONE_OPERATOR: { readonly [op in FilterOperator]: Filter } = {
  eq: { rooms: { eq: 12 } },
  ne: { rooms: { ne: 12 } },
  in: { rooms: { in: [12, 8] } },
  gt: { rooms: { gt: 12 } },
  gte: { rooms: { gte: 12 } },
  lt: { rooms: { lt: 12 } },
  lte: { rooms: { lte: 12 } },
  contains: { tags: { contains: 'pool' } },
  and: { and: [{ rooms: 12 }, { open: true }] },
  or: { or: [{ rooms: 12 }, { open: true }] },
  not: { not: { rooms: 12 } },
};

/** A case comparing the store with the oracle for one filter; it fails a vacuous filter before touching the store. */
export function filterOracleCase(name: string, filter: Filter) {
  return async (t: VectorStoreCaseContext) => {
    const definition = filterDefinition(t.capabilities);
    const known = new Set([definition.key.name, ...definition.data.map((p) => p.name)]);
    const lacking = [...propertiesOf(filter)].filter((p) => !known.has(p));
    if (lacking.length > 0) t.skip(`capabilities.dataTypes lacks the type of ${lacking.join(', ')}`);
    const records = filterRecords(definition);
    const expected = records.filter((r) => oracleMatches(filter, r)).map((r) => r.id as KeyValue);
    // A case expecting nothing or everything would pass with a filter that does nothing.
    expect(expected.length, `vacuous case "${name}": the oracle expects no record`).toBeGreaterThan(0);
    expect(expected.length, `vacuous case "${name}": the oracle expects every record`).toBeLessThan(records.length);
    const { collection } = await seeded(t);
    const unsupported = [...operatorsOf(filter)].filter((op) => !t.capabilities.filterOperators.includes(op));
    const search = () => collection.search(QUERY, { top: records.length + 5, filter });
    if (unsupported.length > 0) {
      // Refused, or (when the store can express it after all) right: never an ignored condition.
      const code = await errorCodeOf(search);
      if (code === 'unsupported_filter') return;
      expect(code, `operators ${unsupported.join(', ')} are not in capabilities.filterOperators`).toBe('no error');
    }
    const sorted = (keys: readonly unknown[]) => [...keys].map(String).sort();
    await t.wait(async () => expect(sorted((await search()).map((r) => r.record.id))).toEqual(sorted(expected)));
  };
}

/** Every operator on every type against the oracle; unsupported and invalid filters refused. */
export function filterSuiteCases(): VectorStoreCases {
  const cases: Record<string, (t: VectorStoreCaseContext) => Promise<void>> = {};
  // Keys depend on the store's key type: build the filters per case, named from string keys.
  const names = Object.keys(filterCases((i) => i));
  for (const name of names) {
    cases[`${name}: the oracle's records`] = (t) => {
      const keyType = filterDefinition(t.capabilities).key.type;
      const filter = filterCases((i) => generatedKey(keyType, i))[name]!;
      return filterOracleCase(name, filter)(t);
    };
  }

  cases['an operator not in capabilities.filterOperators throws unsupported_filter'] = async (t) => {
    const missing = (Object.keys(ONE_OPERATOR) as FilterOperator[]).filter((op) => !t.capabilities.filterOperators.includes(op));
    if (missing.length === 0) t.skip('capabilities.filterOperators lists every operator');
    const { collection } = await seeded(t);
    for (const op of missing) {
      expect(await errorCodeOf(() => collection.search(QUERY, { top: 5, filter: ONE_OPERATOR[op] })), op).toBe('unsupported_filter');
    }
  };

  cases['unknown or non-filterable properties, ranges on strings and values of the wrong type throw invalid_filter'] = async (t) => {
    const { collection, definition } = await seeded(t);
    const has = (name: string) => definition.data.some((p) => p.name === name);
    const bad: Array<[string, Filter]> = [
      ['an unknown property', { nowhere: 'x' }],
      ['an unknown property inside or', { or: [{ rooms: 12 }, { nowhere: 'x' }] }],
      ['an unknown property inside not', { not: { nowhere: 'x' } }],
      ['a property name with a trailing space', { 'rooms ': 12 }],
      ['an unknown operator', { rooms: { like: 12 } as never }],
    ];
    if (has('notes')) bad.push(['a property that is not filterable', { notes: 'note 1' }]);
    if (has('city')) bad.push(['a range on a string', { city: { gt: 'A' } }]);
    if (has('rooms')) bad.push(['a string for an integer', { rooms: 'twelve' }], ['a fraction for an integer', { rooms: 1.5 }]);
    if (has('open')) bad.push(['a number for a boolean', { open: 1 }]);
    if (has('tags')) bad.push(['contains on a number for string[]', { tags: { contains: 1 } }]);
    if (has('opened')) bad.push(['a date that does not parse', { opened: 'not a date' }]);
    for (const [what, filter] of bad) {
      expect(await errorCodeOf(() => collection.search(QUERY, { top: 5, filter })), what).toBe('invalid_filter');
    }
  };
  return cases;
}
