import { createHash } from 'node:crypto';
import { MAX_DOCUMENT_ID_BYTES } from '../validation/name-limits.js';

/** Hex characters of the hash that ends a synced document's id. */
const HASH_CHARS = 16;
/** Longest readable part of the id: the rest of the 255 bytes, less the `-` and the hash. */
const MAX_SLUG_CHARS = MAX_DOCUMENT_ID_BYTES - 1 - HASH_CHARS;

/**
 * The document id of a source's item, the same on every run: a readable slug of the item id
 * (characters outside `[A-Za-z0-9._-]` become `_`, runs of dots one dot, trimmed; its end kept
 * when too long) then `-` and 16 hex characters of the SHA-256 of `sourceId \0 itemId`, so
 * distinct (source, item) pairs get distinct ids. Always a valid document id (at most 255 bytes).
 *
 * ```ts
 * syncDocumentId('folder:/srv/docs', 'guides/Getting started.md'); // 'guides_Getting_started.md-3f1c…'
 * ```
 */
export function syncDocumentId(sourceId: string, itemId: string): string {
  const hash = createHash('sha256').update(sourceId).update('\0').update(itemId).digest('hex').slice(0, HASH_CHARS);
  let slug = itemId
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/_{2,}/g, '_');
  if (slug.length > MAX_SLUG_CHARS) slug = slug.slice(slug.length - MAX_SLUG_CHARS);
  slug = slug.replace(/^[._-]+|[._-]+$/g, '');
  return slug === '' ? hash : `${slug}-${hash}`;
}
