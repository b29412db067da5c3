import type { MemoryFilter } from '@km/core';
import { encodeTag } from '@km/core/connector';
import { Fields } from './mongodb-documents.js';

/** A condition on the `tags` array, in the operators both `$vectorSearch` and `find` accept. */
export type MongoDbTagCondition = { tags: { $eq: string } } | { tags: { $nin: string[] } };

/** A filter km sends: a tag condition, or `$and` / `$or` of them. */
export type MongoDbFilter = MongoDbTagCondition | { $and: MongoDbFilter[] } | { $or: MongoDbFilter[] };

/**
 * MemoryFilter[] → a filter on the `tags` array of `key:value` strings, in the subset of MQL
 * that Atlas Vector Search documents for `$vectorSearch.filter` (`$eq`, `$nin`, `$and`, `$or`),
 * so the same object is the search's pre-filter and `find`'s query. On an array `$eq` matches
 * when one element equals the value, `$nin` when no element is in the list. Inside one filter
 * every equality is its own `$eq` (all required, so several values of one key are all required)
 * and the NOT conditions one `$nin`; several filters are an `$or`. Undefined when anything
 * matches. Values are always the operand of `$eq` / `$nin`, never a key, so a value such as
 * `{"$gt":""}` or `$where` stays a string to compare.
 *
 * ```ts
 * toMongoDbFilter([MemoryFilters.byTag('user', 'a').notTag('type', 'draft')])
 * // { $and: [{ tags: { $eq: 'user:a' } }, { tags: { $nin: ['type:draft'] } }] }
 * ```
 */
export function toMongoDbFilter(filters: readonly MemoryFilter[] | undefined): MongoDbFilter | undefined {
  if (!filters || filters.length === 0 || filters.some((f) => f.isEmpty())) return undefined;
  const clauses = filters.map(toClause);
  return clauses.length === 1 ? clauses[0] : { $or: clauses };
}

function toClause(filter: MemoryFilter): MongoDbFilter {
  const positive = [...new Set(filter.conditions.filter((c) => !c.negated).map((c) => encodeTag(c.key, c.value)))];
  const negative = [...new Set(filter.conditions.filter((c) => c.negated).map((c) => encodeTag(c.key, c.value)))];
  const conditions: MongoDbFilter[] = positive.map((value) => ({ [Fields.tags]: { $eq: value } }) as MongoDbTagCondition);
  if (negative.length > 0) conditions.push({ [Fields.tags]: { $nin: negative } } as MongoDbTagCondition);
  return conditions.length === 1 ? conditions[0]! : { $and: conditions };
}
