import type { TagCollection } from '@km/wire';
import { InvalidInputError } from '../errors/km-error.js';
import { RESERVED_TAG_PREFIX } from './constants.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';

/**
 * Tags of a document or record: key → list of values (the type is @km/wire's). Keys and values
 * are case-sensitive; a key may hold several values. Serialises as Kernel Memory does: `{"user":["alice"]}`.
 */
export type { TagCollection } from '@km/wire';

/** Longest tag key accepted. */
export const MAX_TAG_KEY_LENGTH = 256;

/** Throws `invalid_tag` unless `key` is a usable tag key; reserved keys only when allowed. */
export function validateTagKey(key: unknown, allowReserved = false): string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new InvalidInputError('invalid_tag', 'tag key must be a non-empty string');
  }
  if (key.length > MAX_TAG_KEY_LENGTH) {
    throw new InvalidInputError('invalid_tag', `tag key is longer than ${MAX_TAG_KEY_LENGTH} characters`);
  }
  if (key.includes(':') || key.includes('=')) {
    throw new InvalidInputError('invalid_tag', `tag key ${JSON.stringify(key)} may not contain ':' or '='`);
  }
  const unstorable = unstorableTextReason(key);
  if (unstorable) throw new InvalidInputError('invalid_tag', `tag key ${JSON.stringify(key)} ${unstorable}`);
  if (!allowReserved && key.startsWith(RESERVED_TAG_PREFIX)) {
    throw new InvalidInputError('invalid_tag', `tag key ${JSON.stringify(key)} is reserved: keys starting with "__" belong to km`);
  }
  return key;
}

/**
 * Throws `invalid_tag` unless `value` is a string every memory DB can store (no NUL, no lone
 * surrogate) or null.
 */
export function validateTagValue(key: string, value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') {
    throw new InvalidInputError('invalid_tag', `tag ${JSON.stringify(key)} has a value that is not a string`);
  }
  const unstorable = unstorableTextReason(value);
  if (unstorable) throw new InvalidInputError('invalid_tag', `a value of tag ${JSON.stringify(key)} ${unstorable}`);
  return value;
}

/**
 * Adds `value` under `key` (no duplicate values) and returns the collection. Throws
 * `invalid_tag` on a value no store can hold (see {@link validateTagValue}).
 */
export function addTag(tags: TagCollection, key: string, value: string | null): TagCollection {
  validateTagValue(key, value);
  const values = (tags[key] ??= []);
  if (!values.includes(value)) values.push(value);
  return tags;
}

/** Every (key, value) pair of the collection, in insertion order. */
export function* tagPairs(tags: TagCollection): Iterable<[string, string | null]> {
  for (const [key, values] of Object.entries(tags)) {
    for (const value of values) yield [key, value];
  }
}

/** A deep copy of the collection. */
export function cloneTags(tags: TagCollection | undefined): TagCollection {
  const copy: TagCollection = {};
  if (!tags) return copy;
  for (const [key, values] of Object.entries(tags)) copy[key] = [...values];
  return copy;
}

/** Adds every pair of `source` to `target` and returns `target`. */
export function mergeTags(target: TagCollection, source: TagCollection | undefined): TagCollection {
  if (source) for (const [key, value] of tagPairs(source)) addTag(target, key, value);
  return target;
}

/**
 * Parses Kernel Memory's wire form `key:value` (the value may contain further colons;
 * `key:` and `key` alone give a null value only when `allowEmpty` is set).
 */
export function parseTag(text: string, allowReserved = false): [string, string | null] {
  const at = text.indexOf(':');
  if (at < 0) {
    throw new InvalidInputError('invalid_tag', `tag ${JSON.stringify(text)} must be written key:value`);
  }
  const key = validateTagKey(text.slice(0, at), allowReserved);
  return [key, text.slice(at + 1)];
}

/**
 * Checks a whole collection given by a caller (keys valid and not reserved, values strings or null,
 * no NUL or lone surrogate anywhere) and returns a clean copy.
 */
export function validateTags(tags: unknown, allowReserved = false): TagCollection {
  if (tags === undefined || tags === null) return {};
  if (typeof tags !== 'object' || Array.isArray(tags)) {
    throw new InvalidInputError('invalid_tag', 'tags must be an object of key → list of values');
  }
  const clean: TagCollection = {};
  for (const [key, raw] of Object.entries(tags as Record<string, unknown>)) {
    validateTagKey(key, allowReserved);
    const values = Array.isArray(raw) ? raw : [raw];
    for (const value of values) addTag(clean, key, validateTagValue(key, value));
  }
  return clean;
}
