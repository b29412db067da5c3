import { InvalidInputError } from '../errors/km-error.js';
import type { VectorStoreDriver } from './vector-store-driver.js';

/** Longest collection name, in characters. */
export const MAX_COLLECTION_NAME_LENGTH = 128;

const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * Checks a collection name: 1 to 128 characters among letters, digits, `_` and `-`, starting
 * with a letter or a digit, and within the driver's `collectionNameLimit`. Throws
 * `invalid_argument`. Drivers quote names anyway.
 *
 * ```ts
 * checkCollectionName('hotels-2026', driver); // 'hotels-2026'
 * ```
 */
export function checkCollectionName(name: unknown, driver: Pick<VectorStoreDriver, 'name' | 'collectionNameLimit'>): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_COLLECTION_NAME_LENGTH || !COLLECTION_NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name) : `(${typeof name})`;
    throw new InvalidInputError(
      'invalid_argument',
      `collection name ${shown} must be 1 to ${MAX_COLLECTION_NAME_LENGTH} letters, digits, _ or -, starting with a letter or a digit`,
    );
  }
  const limit = driver.collectionNameLimit;
  // The name is ASCII, so its length is its size in UTF-8 bytes.
  if (limit && name.length > limit.bytes) {
    throw new InvalidInputError(
      'invalid_argument',
      `collection name "${name}" has ${name.length} bytes; ${driver.name} takes at most ${limit.bytes} (${limit.reason})`,
      { connector: driver.name },
    );
  }
  return name;
}

/** True when `name` is a valid collection name (see {@link checkCollectionName}). */
export function isCollectionName(name: string): boolean {
  return name.length <= MAX_COLLECTION_NAME_LENGTH && COLLECTION_NAME.test(name);
}

/**
 * The collections among a backend's names: those starting with `prefix`, without it, that are
 * valid collection names (others, such as a memory DB's tables, are not collections), sorted.
 * For `VectorStoreDriver.listCollections`.
 *
 * ```ts
 * collectionNamesUnderPrefix(['kmvs-hotels', 'kmvs-a b', 'other'], 'kmvs-'); // ['hotels']
 * ```
 */
export function collectionNamesUnderPrefix(names: Iterable<string>, prefix: string): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const collection = name.slice(prefix.length);
    if (isCollectionName(collection)) out.push(collection);
  }
  return out.sort();
}
