import type { TagCollection } from './tag-collection.js';

/**
 * One unit of memory: a vector, its tags and a JSON payload. The text of a partition
 * lives in `payload.text`. Ids produced by the pipeline read `d={documentId}//p={partId}`.
 */
export interface MemoryRecord {
  id: string;
  /** The embedding; empty when read with `withEmbeddings: false`. */
  vector: Float32Array | number[];
  tags: TagCollection;
  payload: Record<string, unknown>;
}

/** Payload field names written by the pipeline (Kernel Memory's names). */
export const PayloadFields = {
  text: 'text',
  /**
   * The breadcrumb of a partition (`Title › Section › Subsection`), also the first line of
   * `text`: when present, `text` starts with `context + "\n\n"`. Absent when the partition has none.
   */
  context: 'context',
  file: 'file',
  url: 'url',
  lastUpdate: 'last_update',
  vectorProvider: 'vector_provider',
  vectorGenerator: 'vector_generator',
} as const;

/** Builds a record id from a document id and a part id: `d={documentId}//p={partId}`. */
export function recordId(documentId: string, partId: string): string {
  return `d=${documentId}//p=${partId}`;
}
