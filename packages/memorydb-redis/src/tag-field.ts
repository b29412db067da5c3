/** The SEPARATOR of the `tags` TAG field: RediSearch splits the hash field's value on it. */
export const TAG_SEPARATOR = ',';

/**
 * Characters that cannot appear as themselves in the indexed form of a tag: `%` (the escape),
 * the separator (RediSearch splits on it), ASCII whitespace and control characters (RediSearch
 * trims whitespace around each tag; control characters are kept out for good measure).
 */
const UNSAFE = /[%,\u0000-\u0020\u007f]/g;

/**
 * The indexed form of one `key:value` tag: every unsafe character as `%XX` (its hex code),
 * everything else as is (`:`, quotes, `|`, `{}`, unicode...). Reversible by {@link decodeIndexedTag}.
 *
 * ```ts
 * encodeIndexedTag('city:New York, NY'); // 'city:New%20York%2C%20NY'
 * ```
 */
export function encodeIndexedTag(tag: string): string {
  return tag.replace(UNSAFE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The tag back from its indexed form. */
export function decodeIndexedTag(indexed: string): string {
  return indexed.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
