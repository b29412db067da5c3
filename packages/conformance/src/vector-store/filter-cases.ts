import type { KeyType, RecordDefinition, VectorStoreFilter } from '@km/core';
import { generatedKey, HOSTILE_STRINGS } from './record-values.js';
import { define } from './test-definitions.js';
import type { AnyRecord, VectorStoreCapabilities } from './vector-store-fixture.js';

type Filter = VectorStoreFilter<AnyRecord>;
const day = (iso: string) => new Date(iso.length === 10 ? `${iso}T00:00:00.000Z` : iso);
const [DROP, DOLLAR, MONGO, STAR, LIKE, QUOTES, BACKSLASH, UNICODE] = HOSTILE_STRINGS as [string, ...string[]];

/**
 * The filter fixture's definition: a filterable property of every data type (the store's
 * types only), optional `city`, `rating` and `opened`, and `notes`, which is not filterable.
 */
export function filterDefinition(capabilities: VectorStoreCapabilities): RecordDefinition<AnyRecord> {
  const all = {
    city: { type: 'string', filterable: true, optional: true },
    rating: { type: 'number', filterable: true, optional: true },
    rooms: { type: 'integer', filterable: true },
    open: { type: 'boolean', filterable: true },
    opened: { type: 'date', filterable: true, optional: true },
    tags: { type: 'string[]', filterable: true },
    scores: { type: 'number[]', filterable: true },
    notes: { type: 'string' },
  } as const;
  const data = Object.fromEntries(Object.entries(all).filter(([, p]) => capabilities.dataTypes.includes(p.type)));
  const keyType: KeyType = capabilities.keyTypes.includes('string') ? 'string' : capabilities.keyTypes[0]!;
  return define({
    key: { name: 'id', type: keyType },
    data,
    vectors: { embedding: { dimensions: 4, distance: capabilities.distances[0]! } },
  });
}

/** Seed values, by record number; `undefined` leaves an optional property out. */
const SEED: ReadonlyArray<Omit<AnyRecord, 'id' | 'embedding'>> = [
  { city: 'Paris', rating: 4.5, rooms: 12, open: true, opened: day('2020-01-15'), tags: ['pool', 'spa'], scores: [1, 2] },
  { city: 'Rome', rating: 3, rooms: 40, open: false, opened: day('2018-06-01'), tags: ['pool'], scores: [2.5] },
  { city: 'paris', rating: 4.5, rooms: 8, open: true, opened: day('2021-03-10T10:00:00.000Z'), tags: [], scores: [] },
  { city: null, rating: null, rooms: 12, open: false, opened: null, tags: ['spa', 'gym'], scores: [3] },
  { rooms: 0, open: true, tags: ['wifi'], scores: [1, 3] },
  { city: DROP, rating: 5, rooms: 100, open: true, opened: day('2022-12-31T23:59:59.999Z'), tags: [DOLLAR, STAR], scores: [-1] },
  { city: DOLLAR, rating: -2.25, rooms: 7, open: false, opened: day('1999-01-01'), tags: [MONGO], scores: [0] },
  { city: MONGO, rating: 0, rooms: 3, open: true, opened: day('2020-01-15'), tags: [LIKE], scores: [2] },
  { city: STAR, rating: 1e-3, rooms: 15, open: false, opened: day('2019-07-04'), tags: [QUOTES], scores: [4.5] },
  { city: QUOTES, rating: 3, rooms: 21, open: true, opened: day('2018-06-01'), tags: [BACKSLASH], scores: [1.5] },
  { city: BACKSLASH, rating: 4, rooms: 12, open: false, opened: day('2023-05-05'), tags: [UNICODE], scores: [] },
  { city: UNICODE, rating: 4.75, rooms: 5, open: true, opened: day('2024-02-29'), tags: ['pool', 'wifi'], scores: [5] },
  { city: LIKE, rating: 2, rooms: 30, open: false, opened: day('2017-11-11'), tags: ['spas'], scores: [2, 2.5] },
  { city: 'Paris', rating: 3.5, rooms: 60, open: false, opened: day('2016-08-08'), tags: ['gym'], scores: [2, 2.5] },
  { city: 'Paris Nord', rating: 2.5, rooms: 9, open: true, opened: day('2025-01-01'), tags: ['Pool'], scores: [10] },
];

/** The seed records for a definition (properties of types the store lacks left out; notes hold hostile text). */
export function filterRecords(definition: RecordDefinition<AnyRecord>): AnyRecord[] {
  const names = new Set(definition.data.map((p) => p.name));
  return SEED.map((values, i) => {
    const record: AnyRecord = { id: generatedKey(definition.key.type, i), embedding: [1, 0.5, 0.25, (i + 1) / SEED.length] };
    for (const [name, value] of Object.entries(values)) if (names.has(name)) record[name] = value;
    if (names.has('notes')) record.notes = `note ${i} ${HOSTILE_STRINGS[i % HOSTILE_STRINGS.length]}`;
    return record;
  });
}

/** The key of seed record `i` (the cases filter on keys too). */
export type KeyOf = (i: number) => string | number;

/**
 * Filter cases by readable name; the suite's oracle gives the expected records. None may
 * expect no record or every record (the suite fails such a case as vacuous), so the documented
 * "matches nothing / everything" rules are checked combined with a condition that matters.
 */
export function filterCases(keyOf: KeyOf): Record<string, Filter> {
  const hostile = Object.fromEntries(
    HOSTILE_STRINGS.map((value) => [`${JSON.stringify(value)} as a value matches exactly the records holding it`, { city: value }]),
  );
  const hostileElements = Object.fromEntries(
    [DOLLAR, STAR, MONGO, LIKE, QUOTES, BACKSLASH, UNICODE].map((value) => [
      `${JSON.stringify(value)} as a contains value matches exactly the records holding it`,
      { tags: { contains: value } },
    ]),
  );
  return {
    'eq on a string': { city: 'Paris' },
    'eq on a string is exact: case-sensitive, no prefix': { city: { eq: 'paris' } },
    'eq on a number': { rating: 4.5 },
    'eq on an integer': { rooms: 12 },
    'eq on a boolean': { open: false },
    'eq on a date': { opened: day('2020-01-15') },
    'eq on a date given as an ISO string': { opened: { eq: '2018-06-01T00:00:00.000Z' } },
    'eq on the key': { id: keyOf(1) },
    'ne on a string matches records without the property': { city: { ne: 'Paris' } },
    'ne on a number': { rating: { ne: 3 } },
    'ne on an integer': { rooms: { ne: 12 } },
    'ne on a boolean': { open: { ne: true } },
    'ne on a date': { opened: { ne: day('2020-01-15') } },
    'ne on the key': { id: { ne: keyOf(0) } },
    'in on a string': { city: { in: ['Rome', 'paris', 'Atlantis'] } },
    'in on a number': { rating: { in: [3, 5] } },
    'in on an integer': { rooms: { in: [0, 7, 8] } },
    'in on a boolean': { open: { in: [true] } },
    'in on a date': { opened: { in: [day('2020-01-15'), '1999-01-01T00:00:00.000Z'] } },
    'in on the key': { id: { in: [keyOf(2), keyOf(4), keyOf(999)] } },
    'gt on a number': { rating: { gt: 3 } },
    'gte on a number includes the bound': { rating: { gte: 3 } },
    'lt on a number': { rating: { lt: 3 } },
    'lte on a number includes the bound': { rating: { lte: 3 } },
    'gt on an integer': { rooms: { gt: 12 } },
    'gte on an integer includes the bound': { rooms: { gte: 12 } },
    'lt on an integer': { rooms: { lt: 12 } },
    'lte on an integer includes the bound': { rooms: { lte: 12 } },
    'gt on a date': { opened: { gt: day('2020-01-15') } },
    'gte on a date includes the bound': { opened: { gte: day('2020-01-15') } },
    'lt on a date': { opened: { lt: '2020-01-15T00:00:00.000Z' } },
    'lte on a date includes the bound, to the millisecond': { opened: { lte: day('2022-12-31T23:59:59.999Z') } },
    'two operators on one property are ANDed (a range)': { rooms: { gte: 8, lt: 30 } },
    'contains on string[]': { tags: { contains: 'pool' } },
    'contains on string[] is exact: case-sensitive, no substring': { tags: { contains: 'spa' } },
    'contains on number[]': { scores: { contains: 2 } },
    'entries of one object are ANDed': { city: 'Paris', open: true },
    'and of filters': { and: [{ rating: { gte: 3 } }, { tags: { contains: 'pool' } }] },
    'or of filters': { or: [{ city: 'Rome' }, { rooms: { lt: 5 } }] },
    'or of ands': { or: [{ city: 'Paris', open: false }, { and: [{ rooms: 12 }, { open: false }] }] },
    'not of an equality matches records without the property': { not: { city: 'Paris' } },
    'not of an or': { not: { or: [{ open: true }, { rooms: { gt: 20 } }] } },
    'not of a range keeps records without the property': { not: { rating: { gte: 3 } } },
    'not of not': { not: { not: { open: true } } },
    'a comparison on a missing or null value is false': { rating: { lt: 100 } },
    'a range on a missing or null date is false': { opened: { gte: day('1900-01-01') } },
    'and: [] matches everything (with a condition)': { and: [], rooms: 12 },
    'or: [] matches nothing (within an or)': { or: [{ or: [] }, { rooms: 12 }] },
    'in: [] matches nothing (within an or)': { or: [{ city: { in: [] } }, { rooms: 12 }] },
    'not of or: [] matches everything (with a condition)': { not: { or: [] }, open: true },
    'a value no record holds matches nothing (within an or)': { or: [{ city: 'Atlantis' }, { rooms: 12 }] },
    ...hostile,
    ...hostileElements,
  };
}
