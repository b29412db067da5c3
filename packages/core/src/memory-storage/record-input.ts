import { InvalidInputError, KmError } from '../errors/km-error.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { unstorableTextReason } from '../validation/unstorable-text.js';
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
 * so a batch with one bad record writes nothing. Text a store cannot hold (NUL, lone
 * surrogates) is refused in the id and payload (`invalid_argument`) and in tags (`invalid_tag`),
 * so every connector fails the same typed way instead of with a driver error.
 */
export function checkRecord(record: MemoryRecord, connector?: string): CheckedRecord {
  const options = connector ? { connector } : {};
  if (record === null || typeof record !== 'object') {
    throw new InvalidInputError('invalid_argument', 'record must be an object', options);
  }
  if (typeof record.id !== 'string' || record.id.length === 0) {
    throw new InvalidInputError('invalid_argument', 'record id must be a non-empty string', options);
  }
  const badId = unstorableTextReason(record.id);
  if (badId) throw new InvalidInputError('invalid_argument', `record id ${JSON.stringify(record.id)} ${badId}`, options);
  let payloadJson: string;
  try {
    payloadJson = JSON.stringify(record.payload ?? {});
  } catch (cause) {
    throw new InvalidInputError('invalid_argument', `payload of record "${record.id}" is not JSON-serialisable`, { ...options, cause });
  }
  if (!payloadJson.startsWith('{')) {
    throw new InvalidInputError('invalid_argument', `payload of record "${record.id}" must be an object`, options);
  }
  const badPayload = unstorableJson(payloadJson);
  if (badPayload) throw new InvalidInputError('invalid_argument', `payload of record "${record.id}" ${badPayload}`, options);
  let tags: TagCollection;
  try {
    tags = validateTags(record.tags, true);
  } catch (cause) {
    throw new InvalidInputError('invalid_tag', `tags of record "${record.id}": ${(cause as Error).message.replace(/^\[km\] /, '')}`, {
      ...options,
      cause,
    });
  }
  return { id: record.id, vector: record.vector, tags, payloadJson };
}

/** Why a payload's JSON holds text no store can keep (in any key or string value), if it does. */
function unstorableJson(json: string): string | undefined {
  // JSON.stringify escapes NUL as \u0000 and lone surrogates as \udXXX: look at the strings it wrote.
  if (!json.includes('\\u')) return undefined;
  let found: string | undefined;
  JSON.parse(json, (key, value: unknown) => {
    found ??= unstorableTextReason(key) ?? (typeof value === 'string' ? unstorableTextReason(value) : undefined);
    return value;
  });
  return found;
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
 * Checks that every record's vector has the index's size (before anything is written; no check
 * when `vectorSize` is undefined, for stores without vectors), and returns the records with one
 * per id, the last one winning, as a single write should apply them.
 */
export function checkBatchForIndex(
  records: CheckedRecord[],
  vectorSize: number | undefined,
  index: string,
  connector: string,
): CheckedRecord[] {
  for (const r of records) {
    if (vectorSize !== undefined && r.vector.length !== vectorSize) {
      throw new KmError('vector_size_mismatch', `index "${index}" has vector size ${vectorSize}, record "${r.id}" has ${r.vector.length}`, {
        connector,
      });
    }
  }
  return [...new Map(records.map((r) => [r.id, r])).values()];
}
