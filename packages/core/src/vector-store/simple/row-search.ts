import type { DistanceFunction, KeyValue } from '../record-definition-types.js';
import type { DriverRecordQuery, DriverVectorQuery } from '../vector-store-driver.js';
import { matchesFilter } from '../filter-evaluator.js';
import { isBetter, vectorScore } from '../vector-score.js';
import { BoundedBest } from './bounded-best.js';
import { getValue, type StoredRow } from './stored-row.js';

/** Rows between two checks of the abort signal during a scan. */
const SIGNAL_EVERY = 4096;

/**
 * Exact vector search: scores every row holding the searched vector and matching the filter,
 * keeps the best `limit` (bounded heap), best first in the distance's convention, ties by key
 * ascending. Returns the stored rows (the caller copies what it hands out).
 *
 * ```ts
 * searchRows(collection.rows(), { vectorProperty, vector, limit: 3, filter: undefined, includeVectors: false });
 * ```
 */
export function searchRows(rows: Iterable<StoredRow>, query: DriverVectorQuery): Array<[StoredRow, number]> {
  const { storageName, distance } = query.vectorProperty;
  const best = new BoundedBest<[StoredRow, number]>(Math.max(0, query.limit), byScoreThenKey(distance));
  if (best.limit === 0) return [];
  let seen = 0;
  for (const row of rows) {
    if (++seen % SIGNAL_EVERY === 0) query.signal?.throwIfAborted();
    const vector = row.vectors.get(storageName);
    if (!vector) continue;
    const score = vectorScore(distance, query.vector, vector);
    if (Number.isNaN(score)) continue;
    const candidate: [StoredRow, number] = [row, score];
    if (!best.admits(candidate)) continue;
    if (query.filter && !matchesFilter(query.filter, row.values)) continue;
    best.offer(candidate);
  }
  return best.sorted();
}

/**
 * Rows matching the filter in the query's order (missing values last in either direction),
 * ties by key ascending; the first `limit` of them (bounded heap).
 */
export function queryRows(rows: Iterable<StoredRow>, query: DriverRecordQuery): StoredRow[] {
  const best = new BoundedBest<StoredRow>(Math.max(0, query.limit), byOrder(query.orderBy));
  if (best.limit === 0) return [];
  let seen = 0;
  for (const row of rows) {
    if (++seen % SIGNAL_EVERY === 0) query.signal?.throwIfAborted();
    if (query.filter && !matchesFilter(query.filter, row.values)) continue;
    best.offer(row);
  }
  return best.sorted();
}

/** Orders keys: integers by value, strings (and uuids) by UTF-16 code units. */
export function compareKeys(a: KeyValue, b: KeyValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function byScoreThenKey(distance: DistanceFunction): (a: [StoredRow, number], b: [StoredRow, number]) => number {
  return (a, b) => {
    if (a[1] !== b[1]) return isBetter(distance, a[1], b[1]) ? -1 : 1;
    return compareKeys(a[0].key, b[0].key);
  };
}

function byOrder(orderBy: DriverRecordQuery['orderBy']): (a: StoredRow, b: StoredRow) => number {
  return (a, b) => {
    for (const { storageName, descending } of orderBy) {
      const x = getValue(a.values, storageName);
      const y = getValue(b.values, storageName);
      const xMissing = x === null || x === undefined;
      const yMissing = y === null || y === undefined;
      if (xMissing || yMissing) {
        if (xMissing && yMissing) continue;
        return xMissing ? 1 : -1;
      }
      const order = compareValues(x, y);
      if (order !== 0) return descending ? -order : order;
    }
    return compareKeys(a.key, b.key);
  };
}

/** Orders two values of one property: numbers, dates (by time), strings (UTF-16 code units), booleans (false first). */
function compareValues(x: unknown, y: unknown): number {
  const a = x instanceof Date ? x.getTime() : typeof x === 'boolean' ? Number(x) : (x as number | string);
  const b = y instanceof Date ? y.getTime() : typeof y === 'boolean' ? Number(y) : (y as number | string);
  return a < b ? -1 : a > b ? 1 : 0;
}
