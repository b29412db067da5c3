import { InvalidInputError } from '@km/core';
import { MAX_ELASTICSEARCH_INDEX_BYTES } from '../index-names.js';

const ENCODED = /^(?:[a-z]~|[a-z0-9_-])+$/;

/**
 * The Elasticsearch index of a km collection name. Index names are lower case, collection names
 * are not: an upper-case letter is written as its lower-case form followed by `~` (a character
 * collection names never hold), so `Hotels` is the index `h~otels` and `hotels` stays `hotels`
 * (an existing index of that name can be a collection). Refused with `invalid_argument` when the
 * result with the prefix passes Elasticsearch's 255 bytes.
 *
 * ```ts
 * indexOfCollection('app-', 'Hotels'); // 'app-h~otels'
 * ```
 */
export function indexOfCollection(prefix: string, collection: string): string {
  const index = `${prefix}${collection.replace(/[A-Z]/g, (c) => `${c.toLowerCase()}~`)}`;
  if (Buffer.byteLength(index, 'utf8') > MAX_ELASTICSEARCH_INDEX_BYTES) {
    throw new InvalidInputError(
      'invalid_argument',
      `collection "${collection}" gives the index "${index}", longer than Elasticsearch's ${MAX_ELASTICSEARCH_INDEX_BYTES} bytes (upper-case letters take two)`,
      { connector: 'elasticsearch' },
    );
  }
  return index;
}

/** The km collection of an index under the prefix, or undefined when the index is not one. */
export function collectionOfIndex(prefix: string, index: string): string | undefined {
  if (!index.startsWith(prefix)) return undefined;
  const encoded = index.slice(prefix.length);
  if (!ENCODED.test(encoded) || !/^[a-z0-9]/.test(encoded)) return undefined;
  const name = encoded.replace(/([a-z])~/g, (_, c: string) => c.toUpperCase());
  return name.length <= 128 ? name : undefined;
}
