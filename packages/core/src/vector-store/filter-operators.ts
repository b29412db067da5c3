import type { FilterOperator } from './vector-store-filter-types.js';

/**
 * Every filter operator, what a driver translates when it lists none (a `VectorStoreDriver`
 * without `filterOperators`).
 *
 * ```ts
 * const operators = driver.filterOperators ?? FILTER_OPERATORS;
 * ```
 */
export const FILTER_OPERATORS: readonly FilterOperator[] = Object.freeze([
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'contains',
]);
