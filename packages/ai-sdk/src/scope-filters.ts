import { MemoryFilter, type TagCondition } from '@km/core';

/** Tags a tool call asks for: each key must have (one of, for a list: all of) the values. */
export type TagFilterInput = Record<string, string | string[]>;

/** The conditions of a tool call's tag filter (AND of every key and value). */
export function tagConditions(tags: TagFilterInput | undefined): TagCondition[] {
  const out: TagCondition[] = [];
  for (const [key, raw] of Object.entries(tags ?? {})) {
    for (const value of Array.isArray(raw) ? raw : [raw]) out.push({ key, value, negated: false });
  }
  return out;
}

/**
 * The filters of one call: the configured scope (OR across its filters) narrowed by the tool
 * call's own conditions (AND with every scope filter), so a model can narrow the scope and
 * never widen it. Undefined when neither says anything.
 */
export function scopedFilters(scope: readonly MemoryFilter[] | undefined, tags: TagFilterInput | undefined): MemoryFilter[] | undefined {
  const extra = tagConditions(tags);
  const base = scope && scope.length > 0 ? scope : undefined;
  if (!base) return extra.length > 0 ? [new MemoryFilter(extra)] : undefined;
  if (extra.length === 0) return [...base];
  return base.map((f) => new MemoryFilter([...f.conditions, ...extra]));
}
