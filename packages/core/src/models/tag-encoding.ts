import type { TagCollection } from './tag-collection.js';

/**
 * Tags as a list of `key:value` strings (how every connector stores them). Keys cannot contain `:`, so the first colon splits; a null
 * value is stored as the bare key.
 */
export function encodeTag(key: string, value: string | null): string {
  return value === null ? key : `${key}:${value}`;
}

/** Every pair of a collection, encoded. */
export function encodeTags(tags: TagCollection): string[] {
  const out: string[] = [];
  for (const [key, values] of Object.entries(tags)) for (const value of values) out.push(encodeTag(key, value));
  return out;
}

/** The collection back from its encoded pairs. */
export function decodeTags(encoded: readonly string[] | null | undefined): TagCollection {
  const tags: TagCollection = {};
  for (const item of encoded ?? []) {
    const at = item.indexOf(':');
    const key = at < 0 ? item : item.slice(0, at);
    const value = at < 0 ? null : item.slice(at + 1);
    (tags[key] ??= []).push(value);
  }
  return tags;
}
