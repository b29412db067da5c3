import type { MemoryFilter } from '@km/core';
import { encodeTag } from '@km/core/connector';

/** A SQL condition with its parameters, numbered from `firstParameter`. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/**
 * MemoryFilter[] → a parameterised WHERE condition on the tags column. Equalities of one filter
 * become `tags @> $n` (all required), its NOT conditions `NOT (tags && $m)` (none present);
 * filters are OR-ed. No value is ever spliced into the SQL text.
 *
 * ```ts
 * toSqlCondition([MemoryFilters.byTag('user', 'a').notTag('type', 'draft')], '"tags"', 2)
 * // { sql: '(("tags" @> $2::text[] AND NOT ("tags" && $3::text[])))', params: [['user:a'], ['type:draft']] }
 * ```
 */
export function toSqlCondition(filters: readonly MemoryFilter[] | undefined, tagsColumn: string, firstParameter: number): SqlCondition {
  if (!filters || filters.length === 0 || filters.some((f) => f.isEmpty())) return { sql: 'TRUE', params: [] };
  const params: unknown[] = [];
  const next = (value: unknown) => {
    params.push(value);
    return `$${firstParameter + params.length - 1}::text[]`;
  };
  const clauses = filters.map((filter) => {
    const positive = filter.conditions.filter((c) => !c.negated).map((c) => encodeTag(c.key, c.value));
    const negative = filter.conditions.filter((c) => c.negated).map((c) => encodeTag(c.key, c.value));
    const parts: string[] = [];
    if (positive.length > 0) parts.push(`${tagsColumn} @> ${next(positive)}`);
    if (negative.length > 0) parts.push(`NOT (${tagsColumn} && ${next(negative)})`);
    return `(${parts.join(' AND ')})`;
  });
  return { sql: `(${clauses.join(' OR ')})`, params };
}
