import type { MemoryRecord } from '@km/core';
import { decodeTags, encodeTags, l2norm, type CheckedRecord } from '@km/core/connector';
import { PayloadFields } from './payload-fields.js';
import { pointIdOf } from './point-id.js';

/** A point as Qdrant returns it (the fields km reads). */
export interface QdrantPoint {
  id: string | number;
  score?: number;
  payload?: Record<string, unknown> | null;
  vector?: unknown;
}

/** The Qdrant point of a checked record. */
export function toPoint(record: CheckedRecord): { id: string; vector: number[]; payload: Record<string, unknown> } {
  return {
    id: pointIdOf(record.id),
    vector: Array.from(record.vector),
    payload: {
      [PayloadFields.id]: record.id,
      [PayloadFields.tags]: encodeTags(record.tags),
      [PayloadFields.payload]: JSON.parse(record.payloadJson) as unknown,
      [PayloadFields.norm]: l2norm(record.vector),
    },
  };
}

/** The km record of a Qdrant point; the vector is scaled back to its original length. */
export function toRecord(point: QdrantPoint, withVector: boolean): MemoryRecord {
  const payload = point.payload ?? {};
  let vector = new Float32Array(0);
  if (withVector && Array.isArray(point.vector)) {
    const norm = typeof payload[PayloadFields.norm] === 'number' ? (payload[PayloadFields.norm] as number) : 1;
    vector = Float32Array.from(point.vector as number[], (x) => x * norm);
  }
  const tags = payload[PayloadFields.tags];
  const data = payload[PayloadFields.payload];
  return {
    id: String(payload[PayloadFields.id] ?? point.id),
    vector,
    tags: decodeTags(Array.isArray(tags) ? tags.map(String) : []),
    payload: data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {},
  };
}
