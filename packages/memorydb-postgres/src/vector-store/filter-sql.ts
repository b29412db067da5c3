import type { FilterNode } from '@km/core/connector';
import { quoteColumn } from './column-names.js';

/** A SQL condition with its parameters, numbered from the first parameter asked for. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

const RANGE_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * A checked vector-store filter → a parameterised WHERE condition, its parameters numbered from
 * `firstParameter`. Values are always parameters (dates as `Date`s, typed by their column) and
 * columns always quoted. SQL's NULL would make `NOT` three-valued, so every negation reads its
 * operand as `coalesce(…, false)`: a comparison on a NULL is false, `ne` matches records
 * without the value, and `not` is the complement. No filter is `TRUE`.
 *
 * | filter | SQL |
 * | --- | --- |
 * | `eq` / `gt` / `gte` / `lt` / `lte` | `col = $n` / `col > $n` / … |
 * | `ne` | `NOT coalesce(col = $n, false)` |
 * | `in` | `col = ANY($n)` (the list as one array parameter); `in: []` → `FALSE` |
 * | `contains` | on `string[]`: `col @> ARRAY[$n]::text[]` (`varchar[]` for the columns in `varcharArrays`), served by the column's GIN index; on `number[]`: `$n = ANY(col)` |
 * | `not` | `NOT coalesce(…, false)` |
 * | `and` / `or` | `(… AND …)` / `(… OR …)`; `and: []` → `TRUE`, `or: []` → `FALSE` |
 *
 * ```ts
 * filterToSql({ op: 'ne', property: city, value: 'Paris' }, 3);
 * // { sql: 'NOT coalesce("city" = $3, false)', params: ['Paris'] }
 * ```
 */
export function filterToSql(
  filter: FilterNode | undefined,
  firstParameter: number,
  /** Storage names of `string[]` properties held in `varchar[]` columns (`@>` needs both sides of one type). */
  varcharArrays: ReadonlySet<string> = new Set(),
): SqlCondition {
  const params: unknown[] = [];
  const parameter = (value: unknown): string => {
    params.push(value);
    return `$${firstParameter + params.length - 1}`;
  };
  const translate = (node: FilterNode): string => {
    switch (node.op) {
      case 'and':
        return node.nodes.length === 0 ? 'TRUE' : `(${node.nodes.map(translate).join(' AND ')})`;
      case 'or':
        return node.nodes.length === 0 ? 'FALSE' : `(${node.nodes.map(translate).join(' OR ')})`;
      case 'not':
        return `NOT coalesce(${translate(node.node)}, false)`;
      case 'eq':
        return `${quoteColumn(node.property)} = ${parameter(node.value)}`;
      case 'ne':
        return `NOT coalesce(${quoteColumn(node.property)} = ${parameter(node.value)}, false)`;
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        return `${quoteColumn(node.property)} ${RANGE_OPERATORS[node.op]} ${parameter(node.value)}`;
      case 'in':
        return node.values.length === 0 ? 'FALSE' : `${quoteColumn(node.property)} = ANY(${parameter([...node.values])})`;
      case 'contains':
        return node.property.type === 'string[]'
          ? `${quoteColumn(node.property)} @> ARRAY[${parameter(node.value)}]::${varcharArrays.has(node.property.storageName) ? 'varchar' : 'text'}[]`
          : `${parameter(node.value)} = ANY(${quoteColumn(node.property)})`;
    }
  };
  return filter === undefined ? { sql: 'TRUE', params } : { sql: translate(filter), params };
}

/** True when the filter has a `contains` condition on a `string[]` property. */
export function hasStringContains(node: FilterNode | undefined): boolean {
  if (node === undefined) return false;
  switch (node.op) {
    case 'and':
    case 'or':
      return node.nodes.some(hasStringContains);
    case 'not':
      return hasStringContains(node.node);
    case 'contains':
      return node.property.type === 'string[]';
    default:
      return false;
  }
}
