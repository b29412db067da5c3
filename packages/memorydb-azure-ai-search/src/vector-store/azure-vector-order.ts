import type { KeyValue } from '@km/core';
import type { DriverRecordQuery, StorageRecord } from '@km/core/connector';

/**
 * The order of a read by filter, applied here (the service sorts nulls first when ascending,
 * and string keys are stored encoded): the `orderBy` keys in turn, missing or null values last
 * in either direction, numbers and dates by value, strings by UTF-16 code
 * units, `false` before `true`; ties by the key ascending (integers by value).
 *
 * ```ts
 * records.sort(recordOrder('hotelId', [{ storageName: 'rating', descending: true }]));
 * ```
 */
export function recordOrder(keyStorageName: string, orderBy: DriverRecordQuery['orderBy']): (a: StorageRecord, b: StorageRecord) => number {
  return (a, b) => {
    for (const { storageName, descending } of orderBy) {
      const x = a[storageName];
      const y = b[storageName];
      const xMissing = x === null || x === undefined;
      const yMissing = y === null || y === undefined;
      if (xMissing || yMissing) {
        if (xMissing && yMissing) continue;
        return xMissing ? 1 : -1;
      }
      const order = compareValues(x, y);
      if (order !== 0) return descending ? -order : order;
    }
    return compareKeys(a[keyStorageName] as KeyValue, b[keyStorageName] as KeyValue);
  };
}

function compareValues(x: unknown, y: unknown): number {
  const a = x instanceof Date ? x.getTime() : typeof x === 'boolean' ? Number(x) : (x as number | string);
  const b = y instanceof Date ? y.getTime() : typeof y === 'boolean' ? Number(y) : (y as number | string);
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareKeys(a: KeyValue, b: KeyValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
