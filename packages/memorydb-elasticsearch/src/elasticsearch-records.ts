import type { MemoryRecord } from '@km/core';
import { decodeTags, encodeTags, type CheckedRecord } from '@km/core/connector';
import { TAGS_FIELD } from './elasticsearch-filters.js';

/** A km record as an Elasticsearch document. */
export interface ElasticsearchRecord {
  id: string;
  tags: string[];
  payload: Record<string, unknown>;
  content: string;
  embedding?: number[];
}

/** The Elasticsearch document of a checked record. */
export function toDocument(record: CheckedRecord): ElasticsearchRecord {
  const payload = JSON.parse(record.payloadJson) as Record<string, unknown>;
  return {
    id: record.id,
    [TAGS_FIELD]: encodeTags(record.tags),
    payload,
    content: typeof payload.text === 'string' ? payload.text : '',
    embedding: Array.from(record.vector),
  };
}

/** The km record of a document's `_source`. */
export function toRecord(source: ElasticsearchRecord): MemoryRecord {
  return {
    id: source.id,
    vector: Array.isArray(source.embedding) ? Float32Array.from(source.embedding) : new Float32Array(0),
    tags: decodeTags(Array.isArray(source.tags) ? source.tags : []),
    payload: source.payload !== null && typeof source.payload === 'object' ? source.payload : {},
  };
}

/** Which `_source` fields a read returns: never the analysed `content` copy, the vector only when asked. */
export function sourceFilter(withEmbeddings: boolean): { excludes: string[] } {
  return { excludes: withEmbeddings ? ['content'] : ['content', 'embedding'] };
}
