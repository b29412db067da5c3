import { toMemoryFilters, type MemoryFilter, type TagCollection } from '@km/core';

/** A filter as a tool receives it: tag name (optionally prefixed with `!`) to value or values. */
export type FilterArgument = Record<string, string | string[]>;

/**
 * Turns the `filters` argument into MemoryFilters: objects are ORed, keys inside one object
 * ANDed, a `!` before a key negates it (the same wire form as the service's `POST /search`).
 * Throws `invalid_filter` on a key or value no record can hold.
 */
export function memoryFiltersOf(filters: readonly FilterArgument[] | undefined): MemoryFilter[] {
  return toMemoryFilters(filters ?? []);
}

/** Turns the `tags` argument of an import into a TagCollection (each value a list). */
export function tagCollectionOf(tags: Record<string, string | string[]> | undefined): TagCollection | undefined {
  if (tags === undefined) return undefined;
  const out: TagCollection = {};
  for (const [key, value] of Object.entries(tags)) out[key] = Array.isArray(value) ? [...value] : [value];
  return out;
}
