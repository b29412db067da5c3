import type { StorageRecord } from './vector-store-driver.js';
import type { FilterNode, FilterScalar } from './vector-store-filter-types.js';

/**
 * Whether a stored record matches a checked filter: the reference semantics every store
 * follows (the built-in store uses it, `describeVectorStore` checks the others against it).
 * Reads values by `property.storageName`. A comparison on a missing or null value is false;
 * `ne` is the complement of `eq` (so it matches records without the value); `not` is the
 * complement; `contains` is true when some element of the stored array equals the value;
 * dates compare by time; `in: []` and `or: []` match nothing, `and: []` everything.
 *
 * ```ts
 * matchesFilter(compileFilter(Hotel, { rating: { gte: 4 } })!, { hotelId: 'h1', rating: 4.5 }); // true
 * ```
 */
export function matchesFilter(node: FilterNode, record: StorageRecord): boolean {
  switch (node.op) {
    case 'and':
      return node.nodes.every((child) => matchesFilter(child, record));
    case 'or':
      return node.nodes.some((child) => matchesFilter(child, record));
    case 'not':
      return !matchesFilter(node.node, record);
    case 'eq':
      return equals(record[node.property.storageName], node.value);
    case 'ne':
      return !equals(record[node.property.storageName], node.value);
    case 'in': {
      const stored = record[node.property.storageName];
      return node.values.some((value) => equals(stored, value));
    }
    case 'contains': {
      const stored = record[node.property.storageName];
      return Array.isArray(stored) && stored.some((element) => equals(element, node.value));
    }
    default: {
      const stored = comparable(record[node.property.storageName]);
      const value = comparable(node.value);
      if (stored === undefined || value === undefined) return false;
      if (node.op === 'gt') return stored > value;
      if (node.op === 'gte') return stored >= value;
      if (node.op === 'lt') return stored < value;
      return stored <= value;
    }
  }
}

function equals(stored: unknown, value: FilterScalar): boolean {
  if (stored === undefined || stored === null) return false;
  if (value instanceof Date) return stored instanceof Date && stored.getTime() === value.getTime();
  return stored === value;
}

/** Numbers and dates (as their time) can be ordered; anything else cannot. */
function comparable(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  return undefined;
}
