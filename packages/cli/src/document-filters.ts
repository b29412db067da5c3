import { KmError, MemoryFilter, toMemoryFilters } from '@km/core';
import { filterPair } from './retrieval-options.js';

/** The filter options of `km documents`. */
export interface DocumentFilterCliOptions {
  /** `--tag key:value`, repeatable: all must match. */
  tag: string[];
  /** `--filter <json>`: KM filter JSON, one object or a list (OR across the list). */
  filter?: string;
}

/**
 * The filters of a listing: the `--filter` JSON filters (OR across them), each also holding every
 * `--tag` (AND); the `--tag`s alone without `--filter`. `invalid_filter` names a bad one.
 */
export function documentFiltersOf(opts: DocumentFilterCliOptions): MemoryFilter[] {
  const tags = opts.tag.map(filterPair);
  const base = opts.filter === undefined ? [new MemoryFilter()] : jsonFilters(opts.filter);
  const filters = base.map((filter) => tags.reduce((f, [key, value]) => f.byTag(key, value), filter));
  return filters.every((f) => f.isEmpty()) ? [] : filters;
}

function jsonFilters(text: string): MemoryFilter[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KmError(
      'invalid_filter',
      `--filter is not JSON: give {"key": ["value"]} or a list of such objects, got ${JSON.stringify(text)}`,
    );
  }
  const filters = toMemoryFilters(Array.isArray(parsed) ? parsed : [parsed]);
  if (filters.length === 0) throw new KmError('invalid_filter', '--filter is an empty list: give at least one {"key": ["value"]} object');
  return filters;
}
