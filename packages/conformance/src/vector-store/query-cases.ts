import type { KeyValue, VectorStoreFilter } from '@km/core';
import { expect } from 'vitest';
import { filterCases, filterDefinition, filterRecords } from './filter-cases.js';
import { generatedKey } from './record-values.js';
import { oracleMatches } from './vector-store-oracle.js';
import { type AnyRecord, errorCodeOf, type VectorStoreCaseContext, type VectorStoreCases } from './vector-store-fixture.js';

type Filter = VectorStoreFilter<AnyRecord>;

/** Keys ascending: numbers numerically, strings by UTF-16 code units. */
function compareKeys(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The oracle's order: by `property` (numbers and dates by value), ties by key ascending. */
function ordered(records: AnyRecord[], property: string, descending: boolean): KeyValue[] {
  const value = (r: AnyRecord) => {
    const v = r[property];
    return v instanceof Date ? v.getTime() : (v as number);
  };
  return [...records]
    .sort((a, b) => (value(a) === value(b) ? compareKeys(a.id, b.id) : (value(a) - value(b)) * (descending ? -1 : 1)))
    .map((r) => r.id as KeyValue);
}

/** The filter fixture written, or a named skip when the driver cannot read by filter or lacks a type. */
async function seeded(t: VectorStoreCaseContext) {
  const definition = filterDefinition(t.capabilities);
  for (const needed of ['rooms', 'rating', 'city', 'tags']) {
    if (!definition.data.some((p) => p.name === needed)) t.skip(`capabilities.dataTypes lacks the type of ${needed}`);
  }
  const records = filterRecords(definition);
  const collection = t.collection(definition);
  await collection.ensureExists();
  if ((await errorCodeOf(() => collection.query({ top: 1 }))) === 'unsupported_operation') {
    t.skip('the driver has no query (collection.query throws unsupported_operation)');
  }
  await collection.upsert(records);
  const keyOf = (i: number) => generatedKey(definition.key.type, i);
  return { collection, records, cases: filterCases(keyOf) };
}

/** Reads by filter in an order (`collection.query`), when the driver can. */
export const queryCases: VectorStoreCases = {
  'query returns exactly the oracle records of a filter, in key order by default': async (t) => {
    const { collection, records, cases } = await seeded(t);
    const names = [
      'ne on a string matches records without the property',
      'contains on string[]',
      'or of ands',
      'a comparison on a missing or null value is false',
      '"\'; DROP TABLE x; --" as a value matches exactly the records holding it',
    ];
    await t.wait(async () => expect(await collection.query({ top: 100 })).toHaveLength(records.length));
    for (const name of names) {
      const filter: Filter = cases[name]!;
      const expected = records
        .filter((r) => oracleMatches(filter, r))
        .map((r) => r.id)
        .sort(compareKeys);
      expect(expected.length, `vacuous filter "${name}"`).toBeGreaterThan(0);
      expect(expected.length, `vacuous filter "${name}"`).toBeLessThan(records.length);
      expect(
        (await collection.query({ filter, top: 100 })).map((r) => r.id),
        name,
      ).toEqual(expected);
    }
  },

  'query orders by a property, ascending or descending, ties by key ascending; top and skip page': async (t) => {
    const { collection, records } = await seeded(t);
    const byRoomsDescending = ordered(records, 'rooms', true);
    await t.wait(async () =>
      expect((await collection.query({ orderBy: [{ property: 'rooms', descending: true }], top: 100 })).map((r) => r.id)).toEqual(
        byRoomsDescending,
      ),
    );
    const page = await collection.query({ orderBy: [{ property: 'rooms', descending: true }], top: 4, skip: 3 });
    expect(page.map((r) => r.id)).toEqual(byRoomsDescending.slice(3, 7));
    const rated: Filter = { rating: { gte: -100 } };
    const byRating = ordered(
      records.filter((r) => oracleMatches(rated, r)),
      'rating',
      false,
    );
    expect((await collection.query({ filter: rated, orderBy: [{ property: 'rating' }], top: 100 })).map((r) => r.id)).toEqual(byRating);
  },

  'query returns records with their values, and vectors only when asked': async (t) => {
    const { collection, records } = await seeded(t);
    const byKey = new Map(records.map((r) => [r.id, r]));
    await t.wait(async () => expect(await collection.query({ top: 100 })).toHaveLength(records.length));
    for (const record of await collection.query({ top: 100 })) {
      expect(record.city ?? null).toEqual(byKey.get(record.id)!.city ?? null);
      expect(record.tags).toEqual(byKey.get(record.id)!.tags);
      expect(record.embedding ?? undefined).toBeUndefined();
    }
    for (const record of await collection.query({ top: 100, includeVectors: true })) {
      expect(record.embedding).toEqual(Float32Array.from(byKey.get(record.id)!.embedding as number[]));
    }
  },
};
