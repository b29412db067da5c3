import type { MemoryFilter } from '@km/core';
import { encodeTag } from '@km/core/connector';

/** The filterable `Collection(Edm.String)` field holding the `key:value` tags. */
export const TAGS_FIELD = 'tags';

/** Characters `search.in` may split on, in order of preference; one that no folded value holds is chosen. */
const DELIMITERS = ['|', ',', ';', '~', '^', '#', '@', '&', '$', '!', '*', '+', '`'];

/**
 * A string as an OData literal: in single quotes, each single quote doubled. Nothing else needs
 * escaping inside an OData string literal, so no value can end the literal early or add syntax.
 *
 * ```ts
 * odataString("o'hara"); // "'o''hara'"
 * ```
 */
export function odataString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * MemoryFilter[] → an OData `$filter` on `tags`. Each equality is `tags/any(t: t eq 'k:v')`,
 * each NOT `not tags/any(...)`; the conditions of one filter are joined by `and` (so several
 * values of one key are all required), the filters by `or`. Undefined when anything matches.
 *
 * `search.in` (one exact-match lookup for many values) replaces a list of `eq` only where the
 * meaning stays the same: the NOT values of one key in one filter (`not any(t in S)` is "none of
 * them", as `and` of the NOTs), and filters made of one equality on the same key (OR across
 * filters is "any of them"). Never the equalities of one filter: they are ANDed, search.in ORs.
 * The delimiter is a character that no folded value holds; when every candidate appears, or a
 * value has leading or trailing white space, the values stay separate `eq`s.
 *
 * ```ts
 * toODataFilter([MemoryFilters.byTag('type', 'news').notTag('user', 'alice')]);
 * // "tags/any(t: t eq 'type:news') and not tags/any(t: t eq 'user:alice')"
 * ```
 */
export function toODataFilter(filters: readonly MemoryFilter[] | undefined): string | undefined {
  if (!filters || filters.length === 0 || filters.some((f) => f.isEmpty())) return undefined;
  // Each filter as the conditions it ANDs; filters of one equality on a key share one entry.
  const clauses: string[][] = [];
  const single = new Map<string, { at: number; values: string[] }>();
  for (const filter of filters) {
    const positive = unique(filter.conditions.filter((c) => !c.negated).map((c) => encodeTag(c.key, c.value)));
    const key = filter.conditions[0]!.key;
    if (positive.length === 1 && filter.conditions.every((c) => !c.negated)) {
      const group = single.get(key);
      if (group) group.values.push(positive[0]!);
      else single.set(key, { at: clauses.push([]) - 1, values: [positive[0]!] });
      continue;
    }
    clauses.push(filterConditions(filter, positive));
  }
  for (const { at, values } of single.values()) clauses[at] = anyOf(unique(values), false);
  if (clauses.length === 1) return clauses[0]!.join(' and ');
  return clauses.map((c) => (c.length === 1 ? c[0] : `(${c.join(' and ')})`)).join(' or ');
}

/** The conditions one filter ANDs: its equalities, then its NOT conditions (folded per key). */
function filterConditions(filter: MemoryFilter, positive: string[]): string[] {
  const negativeByKey = new Map<string, string[]>();
  for (const c of filter.conditions.filter((c) => c.negated)) {
    const values = negativeByKey.get(c.key) ?? [];
    values.push(encodeTag(c.key, c.value));
    negativeByKey.set(c.key, values);
  }
  const negative = [...negativeByKey.values()].flatMap((values) => anyOf(unique(values), true));
  return [...positive.flatMap((value) => anyOf([value], false)), ...negative];
}

/**
 * `tags/any(...)` matching any of the values (negated: none of them), as conditions to AND:
 * one `search.in` where a delimiter fits, else one `eq` per value (ORed, or each negated).
 */
function anyOf(values: string[], negated: boolean): string[] {
  const not = negated ? 'not ' : '';
  if (values.length === 1) return [`${not}${TAGS_FIELD}/any(t: t eq ${odataString(values[0]!)})`];
  const delimiter = searchInDelimiter(values);
  if (delimiter === undefined) {
    const each = values.map((v) => `${TAGS_FIELD}/any(t: t eq ${odataString(v)})`);
    return negated ? each.map((c) => `not ${c}`) : [`(${each.join(' or ')})`];
  }
  return [`${not}${TAGS_FIELD}/any(t: search.in(t, ${odataString(values.join(delimiter))}, ${odataString(delimiter)}))`];
}

/** A delimiter none of the values holds, or undefined when search.in could not split them exactly. */
export function searchInDelimiter(values: readonly string[]): string | undefined {
  if (values.some((v) => v === '' || v.trim() !== v)) return undefined;
  return DELIMITERS.find((d) => values.every((v) => !v.includes(d)));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
