import type { MemoryRecord } from '@km/core';
import { decodeTags, encodeTags, type CheckedRecord } from '@km/core/connector';
import { documentKeyOf, recordIdOfKey } from './document-key.js';
import { TAGS_FIELD } from './odata-filters.js';

/** A km record as an Azure AI Search document. */
export interface SearchDocument {
  /** The key: the km id encoded by `documentKeyOf`. */
  id: string;
  /** The km id, as given. */
  recordId: string;
  tags: string[];
  /** The payload as JSON text. */
  payload: string;
  /** The partition's text (`payload.text`), for lexical search. */
  content: string;
  embedding?: number[];
}

/**
 * The document of a checked record whose id has a key (see `documentKeyOf`). The payload is kept
 * as JSON text, as Kernel Memory's connector kept it: a string field the SDK leaves alone (it
 * turns strings that look like dates into `Date`s inside objects it reads back).
 */
export function toDocument(record: CheckedRecord): SearchDocument {
  const payload = JSON.parse(record.payloadJson) as Record<string, unknown>;
  return {
    id: documentKeyOf(record.id)!,
    recordId: record.id,
    [TAGS_FIELD]: encodeTags(record.tags),
    payload: record.payloadJson,
    content: typeof payload.text === 'string' ? payload.text : '',
    embedding: Array.from(record.vector),
  };
}

/**
 * The km record of a document read back. Its id comes from the key, which decodes exactly
 * (the SDK may turn a stored `recordId` such as `NaN` or `2024-01-01T00:00:00Z` into a number
 * or a Date); `recordId` is the fallback for a key km did not make.
 */
export function toRecord(document: Partial<Record<keyof SearchDocument, unknown>>): MemoryRecord {
  const key = typeof document.id === 'string' ? document.id : '';
  const payload = typeof document.payload === 'string' ? (JSON.parse(document.payload) as unknown) : {};
  return {
    id: recordIdOfKey(key) ?? String(document.recordId ?? key),
    vector: Array.isArray(document.embedding) ? Float32Array.from(document.embedding as number[]) : new Float32Array(0),
    tags: decodeTags(Array.isArray(document.tags) ? (document.tags as string[]) : []),
    payload: payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {},
  };
}

/** The fields a read returns: never `content` (not retrievable) nor `recordId`, the vector only when asked. */
export function selectFields(withEmbeddings: boolean): Array<keyof SearchDocument> {
  return withEmbeddings ? ['id', TAGS_FIELD, 'payload', 'embedding'] : ['id', TAGS_FIELD, 'payload'];
}
