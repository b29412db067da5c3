import type { RecordDefinition } from '@km/core';
import { type FilterNode, type FilterProperty, type FilterScalar, unsupportedFilter } from '@km/core/connector';
import type { Schemas } from '@qdrant/js-client-rest';
import { payloadPath } from './qdrant-payload-path.js';
import { pointIdOfKey } from './qdrant-vector-points.js';

/** A Qdrant filter, as the REST API takes it. */
export type QdrantVectorFilter = Schemas['Filter'];
/** One condition of a Qdrant filter (a field condition, `has_id`, or a nested filter). */
export type QdrantVectorCondition = Schemas['Condition'];

/** A condition true of one point id (any id serves: it is only used against its own negation). */
const SOME_ID: QdrantVectorCondition = { has_id: [0] };
/** Matches no point: an id condition and its negation (needs no empty list, which Qdrant may not accept). */
const NOTHING: QdrantVectorCondition = { must: [SOME_ID, { must_not: [SOME_ID] }] };
/** Matches every point (the complement of {@link NOTHING}). */
const EVERYTHING: QdrantVectorCondition = { must_not: [NOTHING] };

/**
 * A checked filter → a Qdrant filter, applied by Qdrant during the HNSW search. `and` is
 * `must`, `or` is `should`, `not` and `ne` are `must_not` (which, as the filter language wants,
 * also match points without the field). Equality is `match.value` on strings, integers and
 * booleans, a closed `range` on numbers (Qdrant matches exact values of integers only) and on
 * dates (RFC 3339 strings); `in` is `match.any` or a `should` of those; `contains` on an array
 * field is the same condition, which Qdrant applies to each element. The key is compared by
 * point id (`has_id`), and by its payload copy for ranges on integer keys. Fields are named by
 * {@link payloadPath} (quoted when not a plain name). Undefined when there is no filter. Values
 * are data of the JSON body, never parsed as syntax.
 *
 * ```ts
 * toQdrantVectorFilter(compileFilter(Hotel, { rating: { gte: 4 }, tags: { contains: 'pool' } }), Hotel)
 * // { must: [{ key: 'rating', range: { gte: 4 } }, { key: 'tags', match: { value: 'pool' } }] }
 * ```
 */
export function toQdrantVectorFilter(node: FilterNode | undefined, definition: RecordDefinition): QdrantVectorFilter | undefined {
  if (node === undefined) return undefined;
  const condition = toCondition(node, definition);
  return isFilter(condition) ? condition : { must: [condition] };
}

function isFilter(condition: QdrantVectorCondition): condition is QdrantVectorFilter {
  return !('key' in condition) && !('has_id' in condition) && !('is_empty' in condition) && !('is_null' in condition);
}

function toCondition(node: FilterNode, definition: RecordDefinition): QdrantVectorCondition {
  switch (node.op) {
    case 'and':
      return node.nodes.length === 0 ? EVERYTHING : allOf(node.nodes, definition);
    case 'or':
      return node.nodes.length === 0 ? NOTHING : { should: node.nodes.map((n) => toCondition(n, definition)) };
    case 'not':
      return { must_not: [toCondition(node.node, definition)] };
    case 'eq':
      return equals(node.property, node.value, definition);
    case 'ne':
      return { must_not: [equals(node.property, node.value, definition)] };
    case 'in':
      return oneOf(node.property, node.values, definition);
    case 'contains':
      return equals(node.property, node.value, definition);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return range(node.property, node.op, node.value);
  }
}

/**
 * The conditions of an `and`: `must` for each (once each), but the negated ones in the filter's own
 * `must_not`, where the string equalities negated on one field become one `match.any` (none of
 * the values), as km 0.x's memory DB wrote its NOT conditions on tags.
 */
function allOf(nodes: readonly FilterNode[], definition: RecordDefinition): QdrantVectorFilter {
  const must: QdrantVectorCondition[] = [];
  const mustNot: QdrantVectorCondition[] = [];
  const noneOf = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const node of nodes) {
    if (node.op !== 'not') {
      const condition = toCondition(node, definition);
      const text = JSON.stringify(condition);
      if (!seen.has(text)) must.push(condition); // a repeated condition is sent once
      seen.add(text);
      continue;
    }
    const negated = toCondition(node.node, definition);
    const field = negated as { key?: unknown; match?: { value?: unknown } };
    if (typeof field.key === 'string' && typeof field.match?.value === 'string') {
      let values = noneOf.get(field.key);
      if (!values) {
        values = [];
        noneOf.set(field.key, values);
        mustNot.push({ key: field.key, match: { any: values } });
      }
      if (!values.includes(field.match.value)) values.push(field.match.value);
    } else {
      mustNot.push(negated);
    }
  }
  return { ...(must.length > 0 ? { must } : {}), ...(mustNot.length > 0 ? { must_not: mustNot } : {}) };
}

function equals(property: FilterProperty, value: FilterScalar, definition: RecordDefinition): QdrantVectorCondition {
  if (property.kind === 'key') return { has_id: [pointIdOfKey(value as string | number, definition)] };
  const key = payloadPath(property.storageName);
  if (value instanceof Date) return { key, range: { gte: value.toISOString(), lte: value.toISOString() } };
  if (typeof value === 'number' && (property.type === 'number' || property.type === 'number[]' || !Number.isInteger(value))) {
    return { key, range: { gte: value, lte: value } };
  }
  return { key, match: { value } };
}

function oneOf(property: FilterProperty, values: readonly FilterScalar[], definition: RecordDefinition): QdrantVectorCondition {
  if (values.length === 0) return NOTHING;
  if (property.kind === 'key') return { has_id: values.map((v) => pointIdOfKey(v as string | number, definition)) };
  if (values.every((v) => typeof v === 'string')) return { key: payloadPath(property.storageName), match: { any: values as string[] } };
  if (property.type === 'integer' && values.every((v) => typeof v === 'number' && Number.isInteger(v))) {
    return { key: payloadPath(property.storageName), match: { any: values as number[] } };
  }
  return { should: values.map((v) => equals(property, v, definition)) };
}

function range(property: FilterProperty, op: 'gt' | 'gte' | 'lt' | 'lte', value: FilterScalar): QdrantVectorCondition {
  if (property.kind === 'key' && property.type !== 'integer') {
    throw unsupportedFilter('qdrant', op, `ranges apply to integer keys only, "${property.name}" is a ${property.type} key`);
  }
  if (value instanceof Date) return { key: payloadPath(property.storageName), range: { [op]: value.toISOString() } };
  if (typeof value !== 'number') {
    throw unsupportedFilter('qdrant', op, `Qdrant ranges compare numbers and dates, "${property.name}" got a ${typeof value}`);
  }
  return { key: payloadPath(property.storageName), range: { [op]: value } };
}
