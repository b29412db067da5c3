import type { DataPropertyType, RecordDefinition } from '@km/core';
import type { StorageRecord } from '@km/core/connector';
import pgvector from 'pgvector';

/** Column aliases of a SELECT: `k` the key, `d0…` the data properties, `v0…` the vectors, `s` the score. */
export const keyAlias = 'k';
export const dataAlias = (i: number): string => `d${i}`;
export const vectorAlias = (i: number): string => `v${i}`;
export const scoreAlias = 's';

/**
 * The parameters of one record for `INSERT`, in column order (key, data, vectors): values as
 * they are (dates as `Date`s, arrays as arrays), a missing value as NULL, vectors in pgvector's
 * text form (`[1,2,3]`).
 */
export function recordParameters(definition: RecordDefinition, record: StorageRecord): unknown[] {
  const values: unknown[] = [record[definition.key.storageName]];
  for (const property of definition.data) values.push(record[property.storageName] ?? null);
  for (const property of definition.vectors) {
    const vector = record[property.storageName] as ArrayLike<number> | null | undefined;
    values.push(vector == null ? null : pgvector.toSql(Array.from(vector)));
  }
  return values;
}

/**
 * A row read with the aliases above → a record keyed by storage names. `pg` returns `bigint` as
 * a string and `numeric` as a string, PGlite `bigint` as a number: both become numbers. A NULL
 * data value is `null`; a NULL vector is left out.
 */
export function rowToRecord(definition: RecordDefinition, row: Record<string, unknown>, includeVectors: boolean): StorageRecord {
  const key = row[keyAlias];
  const record: StorageRecord = {
    [definition.key.storageName]: definition.key.type === 'integer' ? Number(key) : String(key),
  };
  definition.data.forEach((property, i) => {
    record[property.storageName] = dataValue(property.type, row[dataAlias(i)]);
  });
  if (includeVectors) {
    definition.vectors.forEach((property, i) => {
      const text = row[vectorAlias(i)];
      if (typeof text === 'string') record[property.storageName] = Float32Array.from(pgvector.fromSql(text) as number[]);
    });
  }
  return record;
}

function dataValue(type: DataPropertyType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'number':
    case 'integer':
      return Number(value);
    case 'date':
      return value instanceof Date ? value : new Date(String(value));
    case 'number[]':
      return (value as unknown[]).map((v) => (v === null ? null : Number(v)));
    case 'string':
      // A string property may live in a json or jsonb column (KM's payload): its JSON text.
      return typeof value === 'string' ? value : JSON.stringify(value);
    default:
      return value;
  }
}
