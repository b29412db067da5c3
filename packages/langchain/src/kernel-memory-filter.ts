import { MemoryFilter, toMemoryFilters } from '@km/core';

/**
 * A filter as the LangChain adapters take it: a `MemoryFilter`, a list of them (OR across the
 * list, AND inside one), or Kernel Memory's wire form `{ key: ['value'] }` (AND of all pairs,
 * `{ '!key': ['value'] }` for NOT).
 */
export type KernelMemoryFilter = MemoryFilter | readonly MemoryFilter[] | Record<string, string | null | Array<string | null>>;

/** The filter as a list of MemoryFilter (OR across the list); empty when none. Throws `invalid_filter` on anything else. */
export function toFilterList(filter: KernelMemoryFilter | undefined): MemoryFilter[] {
  if (filter === undefined || filter === null) return [];
  if (filter instanceof MemoryFilter) return [filter];
  if (Array.isArray(filter)) return toMemoryFilters(filter);
  return [MemoryFilter.fromJSON(filter)];
}

/**
 * Both lists at once: every filter of `a` AND every filter of `b` (the OR of each pair's
 * conditions together). An empty list restricts nothing.
 */
export function andFilters(a: readonly MemoryFilter[], b: readonly MemoryFilter[]): MemoryFilter[] {
  if (a.length === 0) return [...b];
  if (b.length === 0) return [...a];
  return a.flatMap((x) => b.map((y) => new MemoryFilter([...x.conditions, ...y.conditions])));
}
