import type { KeyValue, RecordDefinition } from '@km/core';
import { l2norm, type StorageRecord } from '@km/core/connector';
import { pointIdOf } from '../point-id.js';
import type { QdrantPointLayout } from './qdrant-vector-store-options.js';

/**
 * The payload field keeping a copy of each cosine vector as written (by storage name): Qdrant
 * stores cosine vectors normalised, so the copy is what reads give back, exactly. Not indexed,
 * and left out of reads that do not ask for vectors.
 */
export const VECTOR_COPIES_FIELD = '__km_vectors';

/** A point as Qdrant returns it from `retrieve` or `query` (the fields read here). */
export interface QdrantVectorPoint {
  id: string | number;
  score?: number;
  payload?: Record<string, unknown> | null;
  vector?: unknown;
}

/** A point as sent to Qdrant's upsert. */
export interface QdrantVectorPointInput {
  id: string | number;
  /** Named vectors, or the collection's one unnamed vector (see `QdrantPointLayout.unnamedVector`). */
  vector: Record<string, number[]> | number[];
  payload: Record<string, unknown>;
}

/**
 * The Qdrant point id of a key: `uuid` keys and `integer` keys as they are (Qdrant's own id
 * types), `string` keys as a name-based UUID of the key ({@link pointIdOf}, the memory DB's
 * mapping), so the same key always lands on the same point.
 *
 * ```ts
 * pointIdOfKey('h1', 'string'); // '…-5…' (a UUIDv5)
 * pointIdOfKey(7, 'integer'); // 7
 * ```
 */
export function pointIdOfKey(key: KeyValue, definition: RecordDefinition): string | number {
  switch (definition.key.type) {
    case 'integer':
      return Number(key);
    case 'uuid':
      return String(key).toLowerCase();
    default:
      return pointIdOf(String(key));
  }
}

/**
 * The point of a storage record: the key also in the payload under its storage name (string keys
 * have no other home; integer keys are read there by range filters), data values in the payload
 * (dates as ISO 8601 strings, nulls left out, `layout.jsonObjects` as parsed JSON), each vector
 * under its storage name (a missing optional vector is left out; `layout.unnamedVector` as the
 * unnamed vector), and a copy of each cosine vector under {@link VECTOR_COPIES_FIELD}, or its
 * length in the payload field `layout.vectorNorms` names.
 */
export function toVectorPoint(definition: RecordDefinition, record: StorageRecord, layout: QdrantPointLayout = {}): QdrantVectorPointInput {
  const key = record[definition.key.storageName] as KeyValue;
  const payload: Record<string, unknown> = { [definition.key.storageName]: key };
  for (const property of definition.data) {
    const value = record[property.storageName];
    if (value === null || value === undefined) continue;
    if (typeof value === 'string' && layout.jsonObjects?.includes(property.storageName)) payload[property.storageName] = JSON.parse(value);
    else payload[property.storageName] = value instanceof Date ? value.toISOString() : value;
  }
  let vector: Record<string, number[]> | number[] = {};
  const named: Record<string, number[]> = {};
  const copies: Record<string, number[]> = {};
  for (const property of definition.vectors) {
    const value = record[property.storageName];
    if (value === null || value === undefined) continue;
    const floats = value instanceof Float32Array ? value : Float32Array.from(value as number[]);
    const numbers = Array.from(floats);
    if (property.storageName === layout.unnamedVector) vector = numbers;
    else named[property.storageName] = numbers;
    const normField = layout.vectorNorms?.[property.storageName];
    if (normField !== undefined) payload[normField] = l2norm(floats);
    else if (property.distance === 'cosine') copies[property.storageName] = numbers;
  }
  if (!Array.isArray(vector)) vector = named;
  if (Object.keys(copies).length > 0) payload[VECTOR_COPIES_FIELD] = copies;
  return { id: pointIdOfKey(key, definition), vector, payload };
}

/**
 * The storage record of a point: the key from the payload (or the point id when a point written
 * by another client has none), every data property (null when absent, dates as `Date`,
 * `layout.jsonObjects` as JSON text), and the vectors when asked for (a cosine vector from its
 * copy, or scaled back by its stored length, else as Qdrant gives it, normalised).
 */
export function fromVectorPoint(
  definition: RecordDefinition,
  point: QdrantVectorPoint,
  includeVectors: boolean,
  layout: QdrantPointLayout = {},
): StorageRecord {
  const payload = point.payload ?? {};
  const { key } = definition;
  const stored = payload[key.storageName];
  const record: StorageRecord = {
    [key.storageName]: key.type === 'integer' ? Number(stored ?? point.id) : String(stored ?? point.id),
  };
  for (const property of definition.data) {
    const value = payload[property.storageName];
    if (layout.jsonObjects?.includes(property.storageName)) {
      record[property.storageName] = value !== null && typeof value === 'object' && !Array.isArray(value) ? JSON.stringify(value) : null;
      continue;
    }
    record[property.storageName] =
      value === null || value === undefined ? null : property.type === 'date' ? new Date(String(value)) : value;
  }
  if (includeVectors) {
    const vectors = point.vector !== null && typeof point.vector === 'object' && !Array.isArray(point.vector) ? point.vector : {};
    const copies = (payload[VECTOR_COPIES_FIELD] ?? {}) as Record<string, unknown>;
    for (const property of definition.vectors) {
      const value =
        property.storageName === layout.unnamedVector ? point.vector : (vectors as Record<string, unknown>)[property.storageName];
      if (!Array.isArray(value)) continue;
      const normField = layout.vectorNorms?.[property.storageName];
      if (normField !== undefined) {
        const norm = typeof payload[normField] === 'number' ? (payload[normField] as number) : 1;
        record[property.storageName] = Float32Array.from(value as number[], (x) => x * norm);
        continue;
      }
      const copy = copies[property.storageName];
      record[property.storageName] = Float32Array.from((Array.isArray(copy) ? copy : value) as number[]);
    }
  }
  return record;
}
