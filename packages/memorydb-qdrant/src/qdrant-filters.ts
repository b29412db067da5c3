import type { MemoryFilter } from '@km/core';
import { encodeTag } from '@km/core/connector';
import { PayloadFields } from './payload-fields.js';

/** A field condition of Qdrant's filter language on the `tags` keyword array. */
export type QdrantFieldCondition = { key: string; match: { value: string } | { any: string[] } };

/** Qdrant's filter object (the subset km produces): clauses of conditions or nested filters. */
export interface QdrantFilter {
  must?: Array<QdrantFieldCondition | QdrantFilter>;
  should?: Array<QdrantFieldCondition | QdrantFilter>;
  must_not?: Array<QdrantFieldCondition | QdrantFilter>;
}

/**
 * MemoryFilter[] → a Qdrant filter on the `tags` payload array of `key:value` strings.
 * Inside one filter every equality is a `must` with `match.value` (all required, so several
 * values of one key are all required) and the NOT conditions one `must_not` with `match.any`
 * (none present); several filters are alternatives of a `should` of nested filters. Undefined
 * when anything matches (no filter, or an empty one). Values travel as JSON strings, never
 * parsed by Qdrant, so no value can change the query's shape.
 *
 * ```ts
 * toQdrantFilter([MemoryFilters.byTag('user', 'a').notTag('type', 'draft')])
 * // { must: [{ key: 'tags', match: { value: 'user:a' } }], must_not: [{ key: 'tags', match: { any: ['type:draft'] } }] }
 * ```
 */
export function toQdrantFilter(filters: readonly MemoryFilter[] | undefined): QdrantFilter | undefined {
  if (!filters || filters.length === 0 || filters.some((f) => f.isEmpty())) return undefined;
  const clauses = filters.map(toClause);
  return clauses.length === 1 ? clauses[0] : { should: clauses };
}

function toClause(filter: MemoryFilter): QdrantFilter {
  const clause: QdrantFilter = {};
  const positive = filter.conditions.filter((c) => !c.negated).map((c) => encodeTag(c.key, c.value));
  const negative = filter.conditions.filter((c) => c.negated).map((c) => encodeTag(c.key, c.value));
  if (positive.length > 0) clause.must = [...new Set(positive)].map((value) => ({ key: PayloadFields.tags, match: { value } }));
  if (negative.length > 0) clause.must_not = [{ key: PayloadFields.tags, match: { any: [...new Set(negative)] } }];
  return clause;
}
