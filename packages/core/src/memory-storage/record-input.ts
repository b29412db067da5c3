import { InvalidInputError, KmError } from '../errors/km-error.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { validateTags, type TagCollection } from '../models/tag-collection.js';
import { checkVector } from './vector-math.js';

/** A record checked and copied for storage. */
export interface CheckedRecord {
  id: string;
  vector: Float32Array | number[];
  tags: TagCollection;
  payloadJson: string;
}

/**
 * Validates a record before any write (id, tags, JSON payload) and returns a private copy,
 * so a batch with one bad record writes nothing.
 */
export function checkRecord(record: MemoryRecord, connector?: string): CheckedRecord {
  const options = connector ? { connector } : {};
  if (record === null || typeof record !== 'object') {
    throw new InvalidInputError('invalid_argument', 'record must be an object', options);
  }
  if (typeof record.id !== 'string' || record.id.length === 0) {
    throw new InvalidInputError('invalid_argument', 'record id must be a non-empty string', options);
  }
  let payloadJson: string;
  try {
    payloadJson = JSON.stringify(record.payload ?? {});
  } catch (cause) {
    throw new InvalidInputError('invalid_argument', `payload of record "${record.id}" is not JSON-serialisable`, { ...options, cause });
  }
  if (!payloadJson.startsWith('{')) {
    throw new InvalidInputError('invalid_argument', `payload of record "${record.id}" must be an object`, options);
  }
  return { id: record.id, vector: record.vector, tags: validateTags(record.tags, true), payloadJson };
}

/** {@link checkRecord} for stores that need embeddings: the vector must be present and finite. */
export function checkVectorRecord(record: MemoryRecord, connector: string): CheckedRecord {
  const checked = checkRecord(record, connector);
  checkVector(checked.vector, `vector of record "${checked.id}"`);
  if (checked.vector.length === 0) {
    throw new InvalidInputError('invalid_argument', `record "${checked.id}" has no vector; ${connector} needs embeddings`, { connector });
  }
  return checked;
}

/**
 * Checks that every record's vector has the index's size (before anything is written), and
 * returns the records with one per id, the last one winning, as a single write should apply them.
 */
export function checkBatchForIndex(records: CheckedRecord[], vectorSize: number, index: string, connector: string): CheckedRecord[] {
  for (const r of records) {
    if (r.vector.length !== vectorSize) {
      throw new KmError('vector_size_mismatch', `index "${index}" has vector size ${vectorSize}, record "${r.id}" has ${r.vector.length}`, {
        connector,
      });
    }
  }
  return [...new Map(records.map((r) => [r.id, r])).values()];
}
