import type { RecordDefinition } from '@km/core';
import type { DriverRecordQuery, StorageRecord } from '@km/core/connector';

/**
 * The order of `collection.query` over records read from Qdrant: by each `orderBy` field
 * (numbers and dates by value, strings by UTF-16 code units, false before true; missing values
 * last in either direction), ties by the key ascending (integers by value, strings by code
 * units).
 *
 * ```ts
 * records.sort(recordOrder(definition, [{ storageName: 'rating', descending: true }]));
 * ```
 */
export function recordOrder(
  definition: RecordDefinition,
  orderBy: DriverRecordQuery['orderBy'],
): (a: StorageRecord, b: StorageRecord) => number {
  const key = definition.key.storageName;
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
    return compareValues(a[key], b[key]);
  };
}

function compareValues(x: unknown, y: unknown): number {
  const a = x instanceof Date ? x.getTime() : typeof x === 'boolean' ? Number(x) : (x as number | string);
  const b = y instanceof Date ? y.getTime() : typeof y === 'boolean' ? Number(y) : (y as number | string);
  return a < b ? -1 : a > b ? 1 : 0;
}
