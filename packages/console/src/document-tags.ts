import type { TagCollection } from '@km/wire';

/**
 * Parses the tag editor's text, one `key:value` per line (a value may hold commas), into a
 * tag collection; `key` alone (or `key:`) is the key without a value. Throws on a tag with no
 * key, naming it (the service judges the rest, e.g. its reserved `__` keys, and says why).
 *
 * ```ts
 * parseTagLines('topic:space\ndraft'); // { topic: ['space'], draft: [null] }
 * ```
 */
export function parseTagLines(text: string): TagCollection {
  const tags: TagCollection = {};
  for (const raw of text.split(/\r?\n/)) {
    const tag = raw.trim();
    if (tag === '') continue;
    const colon = tag.indexOf(':');
    const key = (colon < 0 ? tag : tag.slice(0, colon)).trim();
    const value = colon < 0 ? '' : tag.slice(colon + 1).trim();
    if (key === '') throw new Error(`the tag ${JSON.stringify(tag)} has no key`);
    (tags[key] ??= []).push(value === '' ? null : value);
  }
  return tags;
}

/** A tag collection as `key:value` strings (`key` alone for a null value), in key order: for display, the editor and upload fields. */
export function tagStrings(tags: TagCollection): string[] {
  return Object.keys(tags)
    .sort()
    .flatMap((key) => (tags[key] ?? []).map((value) => (value === null ? key : `${key}:${value}`)));
}
