import type { DataPropertyType, KeyType, KeyValue, RecordDefinition } from '@km/core';
import type { AnyRecord } from './vector-store-fixture.js';

/**
 * Strings built to break naive query builders and encoders (SQL, Mongo operators, parameter
 * markers, wildcards, quotes, backslashes, unicode); no NUL, no lone surrogates.
 */
export const HOSTILE_STRINGS: readonly string[] = [
  "'; DROP TABLE x; --",
  '$1',
  '{"$ne":1}',
  '*',
  '%_',
  `quote ' and "double"`,
  'back\\slash \\n not a newline',
  'Ünïcødé 🚀 日本語',
];

/** Values each data type must give back exactly (numbers as doubles, dates to the millisecond). */
export const ROUND_TRIP_VALUES: { readonly [T in DataPropertyType]: readonly unknown[] } = {
  string: ['plain', '', 'line\nbreak\ttab', '  padded  ', ...HOSTILE_STRINGS],
  number: [0, 1.5, -0.1, Math.PI, 1e21, -123456.789, 5e-7, 2 ** 53 + 2],
  integer: [0, 1, -1, 42, 2147483647, -2147483648],
  boolean: [true, false],
  date: ['2024-02-29T23:59:59.123Z', '1970-01-01T00:00:00.000Z', '1969-07-20T20:17:40.001Z', '2999-12-31T23:59:59.999Z'].map(
    (iso) => new Date(iso),
  ),
  'string[]': [['b', 'a'], [], ["o'hara", '{"$ne":1}', 'Ünï 🚀'], ['*']],
  'number[]': [[1.5, -2, 0], [], [1e-7, 3.25, 1e21]],
};

/** Keys each key type must give back exactly. */
export const ROUND_TRIP_KEYS: { readonly [T in KeyType]: readonly KeyValue[] } = {
  string: ['k1', 'Ünïcødé-🚀', `o'hara "quoted"`, "'; DROP TABLE x; --", 'a/b?c#d&e=f', '{"$ne":1}', '*', 'é'.repeat(256)],
  integer: [0, 1, 42, 2147483648, Number.MAX_SAFE_INTEGER],
  uuid: ['00000000-0000-0000-0000-000000000000', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'ffffffff-ffff-4fff-bfff-ffffffffffff'],
};

/** A value of `type` for the `i`-th generated record: distinct per `i` for scalar types. */
export function generatedValue(type: DataPropertyType, i: number): unknown {
  switch (type) {
    case 'string':
      return `value ${i}`;
    case 'number':
      return i + 0.5;
    case 'integer':
      return i;
    case 'boolean':
      return i % 2 === 0;
    case 'date':
      return new Date(Date.UTC(2020, 0, 1 + i, 12, 30, 15, 250));
    case 'string[]':
      return [`tag ${i % 3}`, 'every'];
    case 'number[]':
      return [i, i + 0.25];
  }
}

/** The key of the `i`-th generated record. */
export function generatedKey(type: KeyType, i: number): KeyValue {
  switch (type) {
    case 'string':
      return `key-${i}`;
    case 'integer':
      return i + 1;
    case 'uuid':
      return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
  }
}

/** The `i`-th record of a definition: a value for every property, vectors from `vectorOf`. */
export function generatedRecord(definition: RecordDefinition, i: number, vectorOf: (dimensions: number) => Float32Array): AnyRecord {
  const record: AnyRecord = { [definition.key.name]: generatedKey(definition.key.type, i) };
  for (const p of definition.data) record[p.name] = generatedValue(p.type, i);
  for (const v of definition.vectors) record[v.name] = vectorOf(v.dimensions);
  return record;
}

/**
 * A record as it should read back: vectors as `Float32Array` (float32-rounded) when asked for,
 * else absent; an optional value left out or null reads back as null.
 */
export function expectedRecord(definition: RecordDefinition, record: AnyRecord, includeVectors: boolean): AnyRecord {
  const out: AnyRecord = { [definition.key.name]: record[definition.key.name] };
  for (const p of definition.data) out[p.name] = record[p.name] ?? null;
  if (includeVectors) {
    for (const v of definition.vectors) {
      const value = record[v.name] as ArrayLike<number> | null | undefined;
      if (value !== undefined && value !== null) out[v.name] = Float32Array.from(value);
    }
  }
  return out;
}

/** A record read back, with absent optional data values as null (so both spellings compare equal). */
export function readBack(definition: RecordDefinition, record: AnyRecord | undefined): AnyRecord | undefined {
  if (record === undefined) return undefined;
  const out: AnyRecord = { ...record };
  for (const p of definition.data) if (out[p.name] === undefined) out[p.name] = null;
  for (const v of definition.vectors) if (out[v.name] === undefined || out[v.name] === null) delete out[v.name];
  return out;
}
