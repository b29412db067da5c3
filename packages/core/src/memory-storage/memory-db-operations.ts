import type { IMemoryDb } from '../contracts/memory-db.js';
import { isKmError } from '../errors/km-error.js';
import type { MemoryFilter } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { batches } from '../util/concurrency.js';

/**
 * Writes records with the connector's batch call, or one by one when it has none (the
 * fallback lives here, once, not in each connector). A missing index is created with the
 * records' vector size and the write retried.
 */
export async function upsertRecords(db: IMemoryDb, index: string, records: MemoryRecord[], batchSize = 500): Promise<void> {
  for (const batch of batches(records, batchSize)) {
    try {
      await writeBatch(db, index, batch);
    } catch (error) {
      if (!isKmError(error, 'index_not_found')) throw error;
      await db.createIndex(index, batch[0]?.vector.length ?? 0);
      await writeBatch(db, index, batch);
    }
  }
}

async function writeBatch(db: IMemoryDb, index: string, batch: MemoryRecord[]): Promise<void> {
  if (db.upsertBatch) {
    await db.upsertBatch(index, batch);
    return;
  }
  for (const record of batch) await db.upsert(index, record);
}

/** Ids of every record matching the filters. */
export async function listRecordIds(db: IMemoryDb, index: string, filters: MemoryFilter[]): Promise<string[]> {
  const ids: string[] = [];
  for await (const record of db.getList(index, { filters, limit: 0, withEmbeddings: false })) ids.push(record.id);
  return ids;
}
