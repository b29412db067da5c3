import type { MemoryFilter } from '@km/core';
import { encodeTag } from '@km/core/connector';
import { encodeIndexedTag } from './tag-field.js';

/** The query that matches every document. */
export const MATCH_ALL = '*';

/**
 * A value escaped for RediSearch's query syntax: a backslash before every ASCII character that
 * is not a letter, digit or `_` (operators, braces, quotes, `-`, `:`, `$`, `*`, `@`, `%`...), so
 * the parser reads it as one literal tag and it can never change the query. Non-ASCII
 * characters are literal already.
 */
export function escapeQueryValue(value: string): string {
  return value.replace(/[\u0000-\u002f\u003a-\u0040\u005b-\u005e\u0060\u007b-\u007f]/g, (c) => `\\${c}`);
}

/** One tag condition on the `tags` TAG field: `@tags:{escaped indexed tag}`. */
export function tagClause(key: string, value: string | null): string {
  return `@tags:{${escapeQueryValue(encodeIndexedTag(encodeTag(key, value)))}}`;
}

/**
 * MemoryFilter[] → a RediSearch query (DIALECT 2). Inside one filter the conditions are ANDed
 * (terms side by side, so several values of one key are all required), a NOT condition is
 * `-@tags:{...}`; several filters are ORed as `(f1) | (f2)`. `*` when anything matches (no
 * filter, or an empty one). Tags are matched in their indexed form (see {@link encodeIndexedTag}),
 * escaped by {@link escapeQueryValue}.
 *
 * ```ts
 * toRedisQuery([MemoryFilters.byTag('user', 'alice').notTag('type', 'draft')]);
 * // '@tags:{user\:alice} -@tags:{type\:draft}'
 * ```
 */
export function toRedisQuery(filters: readonly MemoryFilter[] | undefined): string {
  if (!filters || filters.length === 0 || filters.some((f) => f.isEmpty())) return MATCH_ALL;
  const clauses = filters.map(filterClause);
  return clauses.length === 1 ? clauses[0]! : clauses.map((c) => `(${c})`).join(' | ');
}

function filterClause(filter: MemoryFilter): string {
  const terms = filter.conditions.map((c) => `${c.negated ? '-' : ''}${tagClause(c.key, c.value)}`);
  return [...new Set(terms)].join(' ');
}

/**
 * The KNN query of a similarity search: the filter as a pre-filter, so the k results are the
 * nearest among matching documents; `$k` and `$vec` are PARAMS, the distance is returned as `distance`.
 */
export function knnQuery(filter: string): string {
  return `${filter === MATCH_ALL ? MATCH_ALL : `(${filter})`}=>[KNN $k @embedding $vec AS distance]`;
}
