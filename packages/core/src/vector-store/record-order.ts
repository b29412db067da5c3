import type { KeyValue } from './record-definition-types.js';
import type { DriverRecordQuery, StorageRecord } from './vector-store-driver.js';

/** Orders keys: integers by value, strings (and uuids) by UTF-16 code units. */
export function compareKeys(a: KeyValue, b: KeyValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Orders two values of one property: numbers, dates (by time), strings (UTF-16 code units), booleans (false first). */
export function compareValues(x: unknown, y: unknown): number {
  const a = x instanceof Date ? x.getTime() : typeof x === 'boolean' ? Number(x) : (x as number | string);
  const b = y instanceof Date ? y.getTime() : typeof y === 'boolean' ? Number(y) : (y as number | string);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The order of `collection.query` (see `DriverRecordQuery.orderBy`) over rows of any shape: the
 * `orderBy` properties in turn, missing or null values last in either direction, values by
 * {@link compareValues}; ties by the key ascending ({@link compareKeys}). For drivers that sort
 * what their backend returns (its own order differs, or it has none).
 *
 * ```ts
 * rows.sort(queryOrder(query.orderBy, (row, name) => row.values[name], (row) => row.key));
 * ```
 */
export function queryOrder<T>(
  orderBy: DriverRecordQuery['orderBy'],
  readValue: (row: T, storageName: string) => unknown,
  keyOf: (row: T) => KeyValue,
): (a: T, b: T) => number {
  return (a, b) => {
    for (const { storageName, descending } of orderBy) {
      const x = readValue(a, storageName);
      const y = readValue(b, storageName);
      const xMissing = x === null || x === undefined;
      const yMissing = y === null || y === undefined;
      if (xMissing || yMissing) {
        if (xMissing && yMissing) continue;
        return xMissing ? 1 : -1;
      }
      const order = compareValues(x, y);
      if (order !== 0) return descending ? -order : order;
    }
    return compareKeys(keyOf(a), keyOf(b));
  };
}

/**
 * {@link queryOrder} over storage records, whose key is under `keyStorageName`.
 *
 * ```ts
 * records.sort(recordOrder(definition.key.storageName, query.orderBy));
 * ```
 */
export function recordOrder(keyStorageName: string, orderBy: DriverRecordQuery['orderBy']): (a: StorageRecord, b: StorageRecord) => number {
  return queryOrder<StorageRecord>(
    orderBy,
    (row, name) => row[name],
    (row) => row[keyStorageName] as KeyValue,
  );
}
