import { compareRecordIds } from '@km/core/connector';

/** Code units where MongoDB's string order (UTF-8 bytes, i.e. code points) and km's (UTF-16 code units) can disagree. */
const ORDER_SENSITIVE = /[\uD800-\uFFFF]/;

/** Runs a `find` sorted by `_id`, with an optional limit and a projection. */
export type FindSorted<T> = (filter: object, limit: number | undefined, projection: object) => Promise<T[]>;

/**
 * The records a listing returns, for the caller to sort with `compareRecordIds`. MongoDB sorts
 * `_id` strings by code point and km by UTF-16 code unit; the two agree unless an id holds a
 * character from U+E000 up or outside the BMP. So a limited listing asks MongoDB for the first
 * `limit` ids; when none of them holds such a character no other id can come before them in
 * km's order either, else the ids are read, ordered here, and the first `limit` fetched.
 */
export async function listRecords<T extends { _id: unknown }>(
  filter: object,
  limit: number | undefined,
  projection: object,
  find: FindSorted<T>,
): Promise<T[]> {
  if (limit === undefined) return find(filter, undefined, projection);
  const first = await find(filter, limit, projection);
  if (!first.some((doc) => ORDER_SENSITIVE.test(String(doc._id)))) return first;
  const ids = (await find(filter, undefined, { _id: 1 }))
    .map((doc) => String(doc._id))
    .sort(compareRecordIds)
    .slice(0, limit);
  return find({ _id: { $in: ids } }, undefined, projection);
}
