import type { estypes } from '@elastic/elasticsearch';
import { type FilterNode, type FilterProperty, type FilterScalar, unsupportedFilter } from '@km/core/connector';

type Query = estypes.QueryDslQueryContainer;

const NOTHING: Query = { match_none: {} };
const EVERYTHING: Query = { match_all: {} };

/**
 * A checked filter → an Elasticsearch query (for `knn.filter`, applied during the graph search,
 * or a search's `query`). `and` is a bool `filter`, `or` a bool `should` with
 * `minimum_should_match: 1`, `not` and `ne` a bool `must_not` (which, as the filter language
 * wants, also matches documents without the field: a `term` on a missing field is false).
 * Equality and `contains` are `term` (a keyword, number or boolean compared exactly; on an
 * array field, any element), `in` is `terms`, ranges are `range` (numbers, dates as ISO 8601).
 * The key is compared by `_id` (`ids`), and by its field for ranges on integer keys. Undefined
 * when there is no filter. Values are data of term and range queries, never query syntax.
 *
 * ```ts
 * toElasticsearchVectorFilter(compileFilter(Hotel, { rating: { gte: 4 }, tags: { contains: 'pool' } }))
 * // { bool: { filter: [{ range: { rating: { gte: 4 } } }, { term: { tags: 'pool' } }] } }
 * ```
 */
export function toElasticsearchVectorFilter(node: FilterNode | undefined): Query | undefined {
  return node === undefined ? undefined : toQuery(node);
}

function toQuery(node: FilterNode): Query {
  switch (node.op) {
    case 'and':
      return node.nodes.length === 0 ? EVERYTHING : { bool: { filter: node.nodes.map(toQuery) } };
    case 'or':
      return node.nodes.length === 0 ? NOTHING : { bool: { should: node.nodes.map(toQuery), minimum_should_match: 1 } };
    case 'not':
      return { bool: { must_not: [toQuery(node.node)] } };
    case 'eq':
    case 'contains':
      return equals(node.property, node.value);
    case 'ne':
      return { bool: { must_not: [equals(node.property, node.value)] } };
    case 'in':
      if (node.values.length === 0) return NOTHING;
      if (node.property.kind === 'key') return { ids: { values: node.values.map(String) } };
      return { terms: { [node.property.storageName]: node.values.map(fieldValue) } };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return range(node.property, node.op, node.value);
  }
}

function equals(property: FilterProperty, value: FilterScalar): Query {
  if (property.kind === 'key') return { ids: { values: [String(value)] } };
  return { term: { [property.storageName]: fieldValue(value) } };
}

function range(property: FilterProperty, op: 'gt' | 'gte' | 'lt' | 'lte', value: FilterScalar): Query {
  if (property.kind === 'key' && property.type !== 'integer') {
    throw unsupportedFilter('elasticsearch', op, `ranges apply to integer keys only, "${property.name}" is a ${property.type} key`);
  }
  if (typeof value !== 'number' && !(value instanceof Date)) {
    throw unsupportedFilter('elasticsearch', op, `ranges compare numbers and dates, "${property.name}" got a ${typeof value}`);
  }
  return { range: { [property.storageName]: { [op]: fieldValue(value) } } };
}

function fieldValue(value: FilterScalar): string | number | boolean {
  return value instanceof Date ? value.toISOString() : value;
}
