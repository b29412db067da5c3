import type { FilterNode, FilterProperty, FilterScalar } from '@km/core/connector';
import { encodeTagValue, numberText } from './redis-vector-hash.js';
import { indexKind } from './redis-vector-schema.js';

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

/** A filter that matches nothing: the search is not sent. */
export const MATCH_NOTHING = Symbol('match nothing');

/**
 * A checked filter → a RediSearch query (DIALECT 2) on the attributes of
 * `createCollectionCommand` (`attributes`: storage name → attribute name). `MATCH_ALL` (`*`)
 * when anything matches, {@link MATCH_NOTHING} when nothing can (`in: []`, `or: []`).
 *
 * - TAG properties (strings, uuids, booleans, arrays): `eq` / `contains` is `@a:{v}`, `in`
 *   `@a:{v1 | v2}`, every value in the stored encoding (`encodeTagValue`) and escaped by the
 *   package's {@link escapeQueryValue}, so no value can change the query;
 * - NUMERIC properties (numbers, integers, dates as epoch ms): `eq` is `@a:[v v]`, ranges
 *   `@a:[(v +inf]`…, `in` an OR of points;
 * - `ne` and `not` are `-(…)`, the complement: records without the property match, as the
 *   filter language says; `and` is juxtaposition, `or` `|`.
 *
 * ```ts
 * toRedisVectorQuery(node, attributes); // '(@rating:[4 +inf] @tags:{pool})'
 * ```
 */
export function toRedisVectorQuery(filter: FilterNode | undefined, attributes: ReadonlyMap<string, string>): string | typeof MATCH_NOTHING {
  if (filter === undefined) return MATCH_ALL;
  const query = translate(filter, attributes);
  return query === true ? MATCH_ALL : query === false ? MATCH_NOTHING : query;
}

/** A query, or `true` / `false` for a filter that matches everything / nothing. */
type Query = string | boolean;

function translate(node: FilterNode, attributes: ReadonlyMap<string, string>): Query {
  switch (node.op) {
    case 'and': {
      const parts = node.nodes.map((n) => translate(n, attributes));
      if (parts.includes(false)) return false;
      const terms = parts.filter((p): p is string => typeof p === 'string');
      return terms.length === 0 ? true : terms.length === 1 ? terms[0]! : `(${terms.join(' ')})`;
    }
    case 'or': {
      const parts = node.nodes.map((n) => translate(n, attributes));
      if (parts.includes(true)) return true;
      const terms = parts.filter((p): p is string => typeof p === 'string');
      return terms.length === 0 ? false : terms.length === 1 ? terms[0]! : `(${terms.join(' | ')})`;
    }
    case 'not': {
      const inner = translate(node.node, attributes);
      return typeof inner === 'boolean' ? !inner : `-${inner}`;
    }
    case 'ne':
      return `-${comparison({ ...node, op: 'eq' }, attributes)}`;
    case 'in': {
      if (node.values.length === 0) return false;
      const attribute = `@${attributes.get(node.property.storageName)!}`;
      if (indexKind(node.property) === 'NUMERIC') {
        const points = node.values.map((v) => `${attribute}:[${point(v)} ${point(v)}]`);
        return points.length === 1 ? points[0]! : `(${points.join(' | ')})`;
      }
      return `${attribute}:{${node.values.map(tagText).join(' | ')}}`;
    }
    case 'contains':
      return `@${attributes.get(node.property.storageName)!}:{${tagText(node.value)}}`;
    default:
      return comparison(node as Comparison, attributes);
  }
}

/** A comparison as {@link comparison} writes it (`ne` is written as the complement of `eq`). */
interface Comparison {
  readonly op: 'eq' | 'gt' | 'gte' | 'lt' | 'lte';
  readonly property: FilterProperty;
  readonly value: FilterScalar;
}

function comparison(node: Comparison, attributes: ReadonlyMap<string, string>): string {
  const attribute = `@${attributes.get(node.property.storageName)!}`;
  if (indexKind(node.property) !== 'NUMERIC') return `${attribute}:{${tagText(node.value)}}`;
  const v = point(node.value);
  const range = { eq: `[${v} ${v}]`, gt: `[(${v} +inf]`, gte: `[${v} +inf]`, lt: `[-inf (${v}]`, lte: `[-inf ${v}]` }[node.op];
  return `${attribute}:${range}`;
}

/** A NUMERIC bound: a number, or a date as epoch ms. */
function point(value: FilterScalar): string {
  return numberText(value instanceof Date ? value.getTime() : Number(value));
}

/** A TAG value as written in a query: stored encoding, then escaped for the query syntax. */
function tagText(value: FilterScalar): string {
  const text = typeof value === 'string' ? encodeTagValue(value) : typeof value === 'number' ? numberText(value) : String(value);
  return escapeQueryValue(text);
}
