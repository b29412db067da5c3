import type { TagCollection } from './tag-collection.js';

/** A file of a document that failed on its own (the document went on without it), with the reason. */
export interface FailedFile {
  name: string;
  error: string;
}

/** The public view of a document's pipeline, as `GET /upload-status` returns it (Kernel Memory's snake_case fields). */
export interface DataPipelineStatus {
  completed: boolean;
  failed: boolean;
  empty: boolean;
  index: string;
  document_id: string;
  tags: TagCollection;
  /** ISO 8601. */
  creation: string;
  /** ISO 8601. */
  last_update: string;
  steps: string[];
  remaining_steps: string[];
  completed_steps: string[];
  error?: string;
  /**
   * Files that failed on their own, with the reason. Once every step ran, any file here makes
   * the document `failed`.
   */
  failed_files?: FailedFile[];
}
