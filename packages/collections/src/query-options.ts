import { InvalidInputError, type RecordDefinition } from '@km/core';

/** Default `top` of a read by filter. */
export const DEFAULT_QUERY_TOP = 100;
/** Largest `top` of a read by filter. */
export const MAX_QUERY_TOP = 10000;
/** Largest `skip` of a read by filter. */
export const MAX_QUERY_SKIP = 10000;

const ORDERABLE_TYPES = new Set(['number', 'integer', 'date', 'string', 'boolean']);

/** Options of a read by filter with their defaults applied and `orderBy` resolved to storage names. */
export interface CheckedQueryOptions {
  readonly orderBy: ReadonlyArray<{ readonly storageName: string; readonly descending: boolean }>;
  readonly top: number;
  readonly skip: number;
  readonly includeVectors: boolean;
}

/**
 * Checks the order and paging of `collection.query`: `orderBy` names the key or a `filterable`
 * data property of type number, integer, date, string or boolean (stores index those); `top`
 * an integer from 1 to 10000 (100), `skip` from 0 to 10000 (0). Throws `invalid_argument`.
 *
 * ```ts
 * checkQueryOptions(Message, { orderBy: [{ property: 'createdAt', descending: true }], top: 20 });
 * ```
 */
export function checkQueryOptions(
  definition: RecordDefinition<unknown>,
  options: { orderBy?: unknown; top?: unknown; skip?: unknown; includeVectors?: unknown },
): CheckedQueryOptions {
  const top = options.top ?? DEFAULT_QUERY_TOP;
  if (typeof top !== 'number' || !Number.isInteger(top) || top < 1 || top > MAX_QUERY_TOP) {
    throw invalid(`top must be an integer from 1 to ${MAX_QUERY_TOP}, got ${String(top)}`);
  }
  const skip = options.skip ?? 0;
  if (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0 || skip > MAX_QUERY_SKIP) {
    throw invalid(`skip must be an integer from 0 to ${MAX_QUERY_SKIP}, got ${String(skip)}`);
  }
  const orderBy = options.orderBy ?? [];
  if (!Array.isArray(orderBy)) throw invalid('orderBy must be an array of { property, descending? }');
  const orderable = [definition.key.name, ...definition.data.filter((p) => p.filterable && ORDERABLE_TYPES.has(p.type)).map((p) => p.name)];
  const resolved = orderBy.map((entry: unknown) => {
    const { property, descending } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const storageName =
      property === definition.key.name
        ? definition.key.storageName
        : definition.data.find((p) => p.name === property && p.filterable && ORDERABLE_TYPES.has(p.type))?.storageName;
    if (storageName === undefined) {
      throw invalid(`cannot order by ${String(property)}; orderable properties (the key, filterable scalars): ${orderable.join(', ')}`);
    }
    if (descending !== undefined && typeof descending !== 'boolean')
      throw invalid(`orderBy ${String(property)}: descending must be true or false`);
    return { storageName, descending: descending === true };
  });
  return { orderBy: resolved, top, skip, includeVectors: options.includeVectors === true };
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message);
}
