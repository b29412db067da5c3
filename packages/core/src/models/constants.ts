/** Reserved tag keys written by the pipeline. User tags may not start with `__`. */
export const ReservedTags = {
  documentId: '__document_id',
  fileId: '__file_id',
  filePart: '__file_part',
  partitionNumber: '__part_n',
  sectionNumber: '__sect_n',
  fileType: '__file_type',
  synthetic: '__synth',
  /** Id of the sync source a synced document came from (see `syncSource`). */
  syncSource: '__sync_source',
  /** Id of the item, inside its sync source, a synced document holds. */
  syncItem: '__sync_item',
  /** Version of the item (content hash, ETag…) a synced document was ingested from. */
  syncVersion: '__sync_version',
} as const;

/** Every reserved key, for validation. */
export const RESERVED_TAG_KEYS: ReadonlySet<string> = new Set(Object.values(ReservedTags));

/** Prefix that marks a tag key as reserved. */
export const RESERVED_TAG_PREFIX = '__';

/** Value of `__synth` on summary records. */
export const SYNTHETIC_SUMMARY = 'summary';

/** Names of the built-in pipeline steps. */
export const Steps = {
  extract: 'extract',
  partition: 'partition',
  genEmbeddings: 'gen_embeddings',
  /** Kernel Memory's name for its parallel embedding handler; km runs `gen_embeddings` under it. */
  genEmbeddingsParallel: 'gen_embeddings_parallel',
  saveRecords: 'save_records',
  summarize: 'summarize',
  /** Kernel Memory's name for its parallel summary handler; km runs `summarize` under it. */
  summarizeParallel: 'summarize_parallel',
  deleteGeneratedFiles: 'delete_generated_files',
  deleteDocument: 'private_delete_document',
  deleteIndex: 'private_delete_index',
} as const;

/** Steps whose names start with this run only when km deletes a document or an index: a request cannot name them. */
export const RESERVED_STEP_PREFIX = 'private_';

/** The steps a document goes through when the request names none. */
export const DEFAULT_STEPS: readonly string[] = [Steps.extract, Steps.partition, Steps.genEmbeddings, Steps.saveRecords];

/** Index used when a request names none. */
export const DEFAULT_INDEX = 'default';

/** Names of km's own files in a document's folder (pipeline state, derived files): see `pipeline/internal-file-names.ts`. */
export {
  INTERNAL_FILE_PREFIX,
  LEGACY_PIPELINE_STATUS_FILE,
  PIPELINE_STATUS_FILE,
  DerivedFileNames,
  isInternalFileName,
} from '../pipeline/internal-file-names.js';

/** Answer text returned when memory holds no relevant fact (Kernel Memory's convention). */
export const NOT_FOUND_ANSWER = 'INFO NOT FOUND';

/** MIME types known to core. */
export const MimeTypes = {
  plainText: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  json: 'application/json',
  textEmbeddingVector: 'float[]',
  octetStream: 'application/octet-stream',
} as const;
