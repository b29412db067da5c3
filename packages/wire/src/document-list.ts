import type { TagCollection } from './tag-collection.js';

/**
 * Where a document's ingestion stands: `completed` (searchable), `in_progress` (steps remain),
 * `failed` (see `error`) or `deleting` (a deletion is under way).
 */
export type DocumentState = 'completed' | 'in_progress' | 'failed' | 'deleting';

/** An uploaded file of a document, as `GET /documents` lists it. */
export interface DocumentFileSummary {
  name: string;
  /** Bytes. */
  size: number;
  mimeType: string;
  /** Set when this file could not be processed (the document went on without it). */
  error?: string;
}

/** A document as `GET /documents` lists it: one entry per document of the index. */
export interface DocumentSummary {
  index: string;
  documentId: string;
  state: DocumentState;
  /** Why the document failed; only with `state: 'failed'`. */
  error?: string;
  /** The document's own tags (no reserved `__` tags). */
  tags: TagCollection;
  /** The uploaded files (not the files the pipeline made from them). */
  files: DocumentFileSummary[];
  /** Total bytes of the uploaded files. */
  size: number;
  /** When this execution started (ISO 8601). */
  creation: string;
  /** Last change of its state (ISO 8601). */
  lastUpdate: string;
  steps: string[];
  remainingSteps: string[];
}

/**
 * Answer of `GET /documents?index=…`: a page of documents in document-id order and the cursor of
 * the next page (`null` on the last). A page may hold fewer than `limit` documents (filters are
 * applied to a bounded number of documents per page) and still have a next one.
 */
export interface DocumentList {
  index: string;
  documents: DocumentSummary[];
  nextCursor: string | null;
}

/** A file stored with a document, as `GET /documents/files` lists it: uploads and what the pipeline made. */
export interface DocumentFileDetails {
  name: string;
  size: number;
  mimeType: string;
  /** `uploaded_file`, `extracted_text`, `text_partition`, `text_embedding_vector`, `synthetic_data`… */
  artifactType: string;
  /** For a generated file: the name of the uploaded file it comes from. */
  parent?: string;
  partitionNumber: number;
  sectionNumber: number;
}

/** Answer of `GET /documents/files`. */
export interface DocumentFiles {
  index: string;
  documentId: string;
  files: DocumentFileDetails[];
}

/** Body of `PUT /documents/tags`: the document's new tags, which replace its own tags (reserved `__` tags stay). */
export interface DocumentTagsUpdate {
  tags: TagCollection;
}
