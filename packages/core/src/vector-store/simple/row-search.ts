import type { DistanceFunction } from '../record-definition-types.js';
import { compareKeys, queryOrder } from '../record-order.js';
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

function byScoreThenKey(distance: DistanceFunction): (a: [StoredRow, number], b: [StoredRow, number]) => number {
  return (a, b) => {
    if (a[1] !== b[1]) return isBetter(distance, a[1], b[1]) ? -1 : 1;
    return compareKeys(a[0].key, b[0].key);
  };
}

function byOrder(orderBy: DriverRecordQuery['orderBy']): (a: StoredRow, b: StoredRow) => number {
  return queryOrder<StoredRow>(
    orderBy,
    (row, name) => getValue(row.values, name),
    (row) => row.key,
  );
}
