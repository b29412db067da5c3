import type { estypes } from '@elastic/elasticsearch';
import type { MemoryFilter } from '@km/core';
import { encodeTag } from '@km/core/connector';

/** The field holding the `key:value` tags (keyword). */
export const TAGS_FIELD = 'tags';

/**
 * MemoryFilter[] → an Elasticsearch bool query on the `tags` keyword field. Inside one filter
 * every equality is a `term` in `must` (all required) and the NOT conditions one `terms` in
 * `must_not` (none present); several filters are a `should` with `minimum_should_match: 1`.
 * Undefined when anything matches. `term` queries compare the exact keyword, so no value is
 * parsed as query syntax (no wildcards, no query_string).
 *
 * ```ts
 * toElasticsearchFilter([MemoryFilters.byTag('user', 'a').notTag('type', 'draft')])
 * // { bool: { must: [{ term: { tags: 'user:a' } }], must_not: [{ terms: { tags: ['type:draft'] } }] } }
 * ```
 */
export function toElasticsearchFilter(filters: readonly MemoryFilter[] | undefined): estypes.QueryDslQueryContainer | undefined {
  if (!filters || filters.length === 0 || filters.some((f) => f.isEmpty())) return undefined;
  const clauses = filters.map(toClause);
  return clauses.length === 1 ? clauses[0] : { bool: { should: clauses, minimum_should_match: 1 } };
}

function toClause(filter: MemoryFilter): estypes.QueryDslQueryContainer {
  const positive = [...new Set(filter.conditions.filter((c) => !c.negated).map((c) => encodeTag(c.key, c.value)))];
  const negative = [...new Set(filter.conditions.filter((c) => c.negated).map((c) => encodeTag(c.key, c.value)))];
  const bool: estypes.QueryDslBoolQuery = {};
  if (positive.length > 0) bool.must = positive.map((value) => ({ term: { [TAGS_FIELD]: value } }));
  if (negative.length > 0) bool.must_not = [{ terms: { [TAGS_FIELD]: negative } }];
  return { bool };
}
