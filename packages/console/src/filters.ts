import type { MemoryFilterJson } from '@km/wire';

/**
 * Parses the console's filter text into KM filters: one filter per line, any line may match
 * (OR); within a line, `key:value` tags separated by commas must all match (AND); a tag written
 * `!key:value` excludes records with it (NOT). `key` alone (or `key:`) means the key without a value.
 *
 * ```ts
 * parseFilters('topic:space, !draft\nuser:alice'); // [{ topic: ['space'], '!draft': [null] }, { user: ['alice'] }]
 * ```
 */
export function parseFilters(text: string): MemoryFilterJson[] {
  const filters: MemoryFilterJson[] = [];
  for (const line of text.split(/\r?\n/)) {
    const filter: MemoryFilterJson = {};
    for (const raw of line.split(',')) {
      const tag = raw.trim();
      if (tag === '') continue;
      const negated = tag.startsWith('!');
      const body = negated ? tag.slice(1).trim() : tag;
      const colon = body.indexOf(':');
      const key = (colon < 0 ? body : body.slice(0, colon)).trim();
      const value = colon < 0 ? '' : body.slice(colon + 1).trim();
      if (key === '') throw new Error(`the filter tag ${JSON.stringify(tag)} has no key`);
      (filter[(negated ? '!' : '') + key] ??= []).push(value === '' ? null : value);
    }
    if (Object.keys(filter).length > 0) filters.push(filter);
  }
  return filters;
}

/** Parses upload tags, `key:value` separated by commas or new lines, into the `tags` form fields. */
export function parseTagFields(text: string): string[] {
  return text
    .split(/[,\r\n]+/)
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => {
      if (t.startsWith(':')) throw new Error(`the tag ${JSON.stringify(t)} has no key`);
      return t;
    });
}
