import type { MemoryRecord } from '@km/core';
import type { CheckedRecord } from '@km/core/connector';
import { tagFieldValue, tagsFromField } from './tag-field.js';
import { fromFloat32Blob, toFloat32Blob } from './vector-blob.js';

/** Hash fields of a km record; `tags` and `embedding` are the indexed ones. */
export const Fields = {
  /** The km record id, exactly as given. */
  id: 'id',
  /** The `key:value` tags in their indexed form (see `tagFieldValue`): a TAG field. */
  tags: 'tags',
  /** The record's JSON payload. */
  payload: 'payload',
  /** The vector as a FLOAT32 little-endian blob: a VECTOR field. */
  embedding: 'embedding',
} as const;

/** Fields read back without the vector. */
export const FIELDS_WITHOUT_VECTOR = [Fields.id, Fields.tags, Fields.payload] as const;

/** The hash of a checked record. */
export function toHash(record: CheckedRecord): Record<string, string | Buffer> {
  return {
    [Fields.id]: record.id,
    [Fields.tags]: tagFieldValue(record.tags),
    [Fields.payload]: record.payloadJson,
    [Fields.embedding]: toFloat32Blob(record.vector),
  };
}

/** A field value as read with the Buffer type mapping (or as a string by a client without it). */
export type FieldValue = Buffer | string | null | undefined;

const text = (value: FieldValue): string | undefined => (value === null || value === undefined ? undefined : value.toString('utf8'));

/** The km record of a hash's fields; undefined when it is no km record (no `id`). */
export function toRecord(fields: Record<string, FieldValue>, withVector: boolean): MemoryRecord | undefined {
  const id = text(fields[Fields.id]);
  if (id === undefined) return undefined;
  const blob = fields[Fields.embedding];
  const payload = parseObject(text(fields[Fields.payload]));
  return {
    id,
    vector: withVector && blob ? fromFloat32Blob(Buffer.isBuffer(blob) ? blob : Buffer.from(blob, 'binary')) : new Float32Array(0),
    tags: tagsFromField(text(fields[Fields.tags])),
    payload,
  };
}

function parseObject(json: string | undefined): Record<string, unknown> {
  if (!json) return {};
  try {
    const value = JSON.parse(json) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
