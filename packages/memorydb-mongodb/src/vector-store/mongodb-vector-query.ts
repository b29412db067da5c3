import type { DriverRecordQuery } from '@km/core/connector';
import type { Document } from 'mongodb';
import { KEY_FIELD } from './mongodb-vector-documents.js';

/** Prefix of the fields a query adds to sort missing values last (no storage name starts with `$`, and none with this). */
const MISSING_FLAG = '__km_missing_';

/**
 * The aggregation of a read by filter in an order: `$match` on the filter, a flag per sort key
 * that is 1 when the value is missing or null (sorted first, ascending, so missing values come
 * last in either direction), `$sort` on flags and values with the key (`_id`) ascending as the
 * last tie-breaker, `$limit`, and the projection of the fields wanted.
 *
 * ```ts
 * recordQueryPipeline({ rating: { $gte: 4 } }, [{ storageName: 'rating', descending: true }], 10, { rating: 1 });
 * // [{ $match }, { $addFields: { __km_missing_0: … } }, { $sort: { __km_missing_0: 1, rating: -1, _id: 1 } }, { $limit: 10 }, { $project }]
 * ```
 */
export function recordQueryPipeline(
  filter: Document,
  orderBy: DriverRecordQuery['orderBy'],
  limit: number,
  projection: Document,
  keyStorageName: string,
): Document[] {
  const flags: Document = {};
  const sort: Document = {};
  orderBy.forEach(({ storageName, descending }, i) => {
    const field = storageName === keyStorageName ? KEY_FIELD : storageName;
    const flag = `${MISSING_FLAG}${i}`;
    flags[flag] = {
      $cond: [{ $eq: [{ $ifNull: [{ $getField: { field: { $literal: field }, input: '$$CURRENT' } }, null] }, null] }, 1, 0],
    };
    sort[flag] = 1;
    if (!(field in sort)) sort[field] = descending ? -1 : 1;
  });
  if (!(KEY_FIELD in sort)) sort[KEY_FIELD] = 1;
  return [
    ...(Object.keys(filter).length > 0 ? [{ $match: filter }] : []),
    ...(orderBy.length > 0 ? [{ $addFields: flags }] : []),
    { $sort: sort },
    { $limit: limit },
    { $project: projection },
  ];
}
