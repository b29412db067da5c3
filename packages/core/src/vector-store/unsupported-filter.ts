import { KmError } from '../errors/km-error.js';
import type { FilterOperator } from './vector-store-filter-types.js';

/**
 * The error a store raises for a filter its backend cannot express (code `unsupported_filter`,
 * naming the operator and the connector). Drivers throw it while translating a `FilterNode`;
 * the wrapper throws it before calling a driver that does not list the operator.
 *
 * ```ts
 * throw unsupportedFilter('redis', 'contains', 'number[] fields are not indexed as tags');
 * // [km] [redis] filter operator contains is not supported by redis: number[] fields are not indexed as tags
 * ```
 */
export function unsupportedFilter(connector: string, op: FilterOperator | string, reason: string): KmError {
  return new KmError('unsupported_filter', `filter operator ${op} is not supported by ${connector}: ${reason}`, { connector });
}
