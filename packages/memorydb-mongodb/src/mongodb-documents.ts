import type { MemoryRecord } from '@km/core';
import { decodeTags, encodeTags, type CheckedRecord } from '@km/core/connector';
import { Double } from 'mongodb';

/** Field names of a km document: the km id is `_id`; tags are `key:value` strings as every km connector stores them. */
export const Fields = {
  /** The vector, an array of BSON doubles (the `vector` field of the search index). */
  embedding: 'embedding',
  /** `key:value` strings (a `filter` field of the search index). */
  tags: 'tags',
  /** The record's JSON payload, as a sub-document. */
  payload: 'payload',
} as const;

/** A km document as stored (the `_id` is the km record id, exactly as given). */
export interface MongoDbRecord {
  _id: string;
  embedding?: unknown;
  tags?: unknown;
  payload?: unknown;
  score?: unknown;
}

/**
 * The stored fields of a checked record (without `_id`, which the upsert filter sets). Every
 * element of the vector is a BSON double: the driver would write whole numbers as int32, and a
 * vector index reads arrays of doubles.
 */
export function toDocument(record: CheckedRecord): Omit<MongoDbRecord, '_id' | 'score'> {
  return {
    [Fields.embedding]: toDoubles(record.vector),
    [Fields.tags]: encodeTags(record.tags),
    [Fields.payload]: JSON.parse(record.payloadJson) as unknown,
  };
}

/** A query or record vector as BSON doubles. */
export function toDoubles(vector: Float32Array | readonly number[]): Double[] {
  return Array.from(vector, (x) => new Double(x));
}

/** The km record of a stored document. */
export function toRecord(doc: MongoDbRecord): MemoryRecord {
  const { embedding, tags, payload } = doc;
  return {
    id: String(doc._id),
    vector: Array.isArray(embedding) ? Float32Array.from(embedding, Number) : new Float32Array(0),
    tags: decodeTags(Array.isArray(tags) ? tags.map(String) : []),
    payload: payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {},
  };
}
