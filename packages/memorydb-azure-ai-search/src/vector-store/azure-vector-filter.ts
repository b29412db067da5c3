import type { FilterNode, FilterProperty, FilterScalar } from '@km/core/connector';
import { unsupportedFilter } from '@km/core/connector';
import { odataString, searchInDelimiter } from '../odata-literals.js';
import { documentKeyFor } from './azure-vector-documents.js';

/** A filter that matches nothing: the search is not sent. */
export const MATCH_NOTHING = Symbol('match nothing');

/**
 * A checked filter → an OData `$filter` on the fields of `vectorIndexDefinition` (storage
 * names, which `checkFieldNames` keeps to plain identifiers). Undefined when anything matches,
 * {@link MATCH_NOTHING} when nothing can (`in: []`, `or: []`).
 *
 * - comparisons are `eq ne gt ge lt le` with OData literals: strings quoted by the package's
 *   `odataString` (quotes doubled), numbers as they are, dates as `DateTimeOffset` literals;
 *   the key is compared in its document-key form (`documentKeyFor`);
 * - `in` on strings is one `search.in` when the package's `searchInDelimiter` finds a
 *   delimiter no value holds, else an `or` of `eq`s; on other types an `or` of `eq`s;
 * - `contains` is `f/any(t: t eq v)`; `not` is `not (…)` (`not f/any(…)` around a `contains`);
 *   `ne` is `ne`, which is true on a null value, so records without the property match, as the
 *   filter language says;
 * - string `contains` on one property are folded into one `search.in` where that keeps the
 *   meaning: those `or`ed ("any of them") and those negated and `and`ed ("none of them");
 * - `and` / `or` are parenthesised, but for the whole filter's;
 * - ranges on the key are refused with `unsupported_filter` (keys are strings in the index).
 *
 * ```ts
 * toODataVectorFilter(node); // "rating ge 4 and tags/any(t: t eq 'pool')"
 * ```
 */
export function toODataVectorFilter(filter: FilterNode | undefined): string | undefined | typeof MATCH_NOTHING {
  if (filter === undefined) return undefined;
  const translated = translate(filter, true);
  return translated === true ? undefined : translated === false ? MATCH_NOTHING : translated;
}

/** A filter, or `true` / `false` for one that matches everything / nothing. */
type Filter = string | boolean;

const OPERATORS = { eq: 'eq', ne: 'ne', gt: 'gt', gte: 'ge', lt: 'lt', lte: 'le' } as const;

/** A node in OData; the `and` / `or` of the whole filter (`top`) without parentheses around it. */
function translate(node: FilterNode, top = false): Filter {
  switch (node.op) {
    case 'and':
    case 'or': {
      const parts = foldContains(node.op, node.nodes).map((n) => (typeof n === 'string' ? n : translate(n)));
      const absorbing = node.op === 'or';
      if (parts.includes(absorbing)) return absorbing;
      const terms = parts.filter((p): p is string => typeof p === 'string');
      if (terms.length === 0) return !absorbing;
      if (terms.length === 1) return terms[0]!;
      return top ? terms.join(` ${node.op} `) : `(${terms.join(` ${node.op} `)})`;
    }
    case 'not': {
      const inner = translate(node.node);
      if (typeof inner === 'boolean') return !inner;
      return only(node.node).op === 'contains' ? `not ${inner}` : `not (${inner})`;
    }
    case 'in': {
      if (node.values.length === 0) return false;
      const literals = node.values.map((v) => comparable(node.property, v));
      const strings = literals.every((l) => typeof l === 'string') ? (literals as string[]) : undefined;
      const delimiter = strings && searchInDelimiter(strings);
      if (strings && delimiter !== undefined) {
        return `search.in(${node.property.storageName}, ${odataString(strings.join(delimiter))}, ${odataString(delimiter)})`;
      }
      const each = node.values.map((v) => `${node.property.storageName} eq ${literal(node.property, v)}`);
      return each.length === 1 ? each[0]! : `(${each.join(' or ')})`;
    }
    case 'contains':
      return `${node.property.storageName}/any(t: t eq ${typeof node.value === 'string' ? odataString(node.value) : numberLiteral(node.value)})`;
    default: {
      if (node.property.kind === 'key' && node.op !== 'eq' && node.op !== 'ne') {
        throw unsupportedFilter(
          'azureaisearch',
          node.op,
          'keys are strings in Azure AI Search (integer keys as their decimal text); ranges on the key cannot be expressed',
        );
      }
      return `${node.property.storageName} ${OPERATORS[node.op]} ${literal(node.property, node.value)}`;
    }
  }
}

/** A node without the `and` / `or` of one node around it. */
function only(node: FilterNode): FilterNode {
  while ((node.op === 'and' || node.op === 'or') && node.nodes.length === 1) node = node.nodes[0]!;
  return node;
}

/**
 * The nodes of an `or` with its `contains` of strings on one property folded into one
 * `f/any(t: search.in(t, 'a|b', '|'))` ("any of them"), and those of an `and` with its
 * `not contains` on one property folded into one `not f/any(t: search.in(...))` ("none of
 * them"), in place of the first; nothing else changes meaning. Values stay separate when no
 * delimiter fits (`searchInDelimiter`). KM's tag filters read as km 0.x sent them.
 */
function foldContains(op: 'and' | 'or', nodes: readonly FilterNode[]): Array<FilterNode | string> {
  const negated = op === 'and';
  const foldableValue = (node: FilterNode): { field: string; value: string } | undefined => {
    let inner = only(node);
    if (negated) {
      if (inner.op !== 'not') return undefined;
      inner = only(inner.node);
    }
    return inner.op === 'contains' && typeof inner.value === 'string'
      ? { field: inner.property.storageName, value: inner.value }
      : undefined;
  };
  const values = new Map<string, string[]>();
  for (const node of nodes) {
    const found = foldableValue(node);
    if (found) values.set(found.field, [...new Set([...(values.get(found.field) ?? []), found.value])]);
  }
  const out: Array<FilterNode | string> = [];
  const folded = new Set<string>();
  for (const node of nodes) {
    const found = foldableValue(node);
    const list = found && values.get(found.field)!;
    const delimiter = list && list.length > 1 ? searchInDelimiter(list) : undefined;
    if (!found || !list || delimiter === undefined) {
      out.push(node);
      continue;
    }
    if (folded.has(found.field)) continue;
    folded.add(found.field);
    const any = `${found.field}/any(t: search.in(t, ${odataString(list.join(delimiter))}, ${odataString(delimiter)}))`;
    out.push(negated ? `not ${any}` : any);
  }
  return out;
}

/** The value as stored: the key in its document-key form, strings as they are, others unchanged. */
function comparable(property: FilterProperty, value: FilterScalar): FilterScalar {
  return property.kind === 'key' ? documentKeyFor(property, value as string | number) : value;
}

/** An OData literal. */
function literal(property: FilterProperty, value: FilterScalar): string {
  const stored = comparable(property, value);
  if (typeof stored === 'string') return odataString(stored);
  if (typeof stored === 'boolean') return stored ? 'true' : 'false';
  if (stored instanceof Date) return stored.toISOString();
  return numberLiteral(stored);
}

function numberLiteral(value: number): string {
  return Object.is(value, -0) ? '0' : String(value);
}
