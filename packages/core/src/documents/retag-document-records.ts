import type { IMemoryDb } from '../contracts/memory-db.js';
import { MemoryFilters } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { RESERVED_TAG_PREFIX } from '../models/constants.js';
import type { TagCollection } from '../models/tag-collection.js';
import { upsertRecords } from '../memory-storage/memory-db-operations.js';

/**
 * Gives every record of a document the document's new own tags, keeping each record's reserved
 * (`__`) tags. A memory DB with `updateTags` changes them in place (records are read without
 * their vectors); any other is rewritten through upsert with vectors and payloads as read.
 * Returns how many records were retagged.
 */
export async function retagDocumentRecords(db: IMemoryDb, index: string, documentId: string, tags: TagCollection): Promise<number> {
  const inPlace = typeof db.updateTags === 'function';
  const records: MemoryRecord[] = [];
  for await (const record of db.getList(index, { filters: [MemoryFilters.byDocument(documentId)], limit: 0, withEmbeddings: !inPlace })) {
    records.push({ ...record, tags: withOwnTags(record.tags, tags) });
  }
  if (records.length === 0) return 0;
  if (inPlace)
    await db.updateTags!(
      index,
      records.map((r) => ({ id: r.id, tags: r.tags })),
    );
  else await upsertRecords(db, index, records);
  return records.length;
}

/** A record's reserved tags with `own` as its other tags. */
export function withOwnTags(recordTags: TagCollection, own: TagCollection): TagCollection {
  const tags: TagCollection = {};
  for (const [key, values] of Object.entries(recordTags)) if (key.startsWith(RESERVED_TAG_PREFIX)) tags[key] = [...values];
  for (const [key, values] of Object.entries(own)) tags[key] = [...values];
  return tags;
}
