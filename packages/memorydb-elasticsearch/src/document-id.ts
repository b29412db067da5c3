import { createHash } from 'node:crypto';

/** Elasticsearch refuses `_id`s longer than 512 bytes. */
export const MAX_ELASTICSEARCH_ID_BYTES = 512;

/**
 * The `_id` of a km record: the km id itself when it fits Elasticsearch's 512-byte limit, else
 * `sha256:` and the hex digest of its UTF-8 bytes. The km id is also kept, exactly, in the `id`
 * keyword field, which is what km reads and sorts on.
 */
export function documentIdOf(recordId: string): string {
  if (Buffer.byteLength(recordId, 'utf8') <= MAX_ELASTICSEARCH_ID_BYTES && !recordId.startsWith('sha256:')) return recordId;
  return `sha256:${createHash('sha256').update(recordId, 'utf8').digest('hex')}`;
}
