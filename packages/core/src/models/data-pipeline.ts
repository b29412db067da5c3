import type { DataPipelineStatus } from '@km/wire';
import type { TagCollection } from './tag-collection.js';

/** What a file in a pipeline is: the upload or something a handler made from it. */
export type ArtifactType =
  | 'uploaded_file'
  | 'extracted_text'
  | 'extracted_content'
  | 'text_partition'
  | 'text_embedding_vector'
  | 'synthetic_data';

/** One line of a file's processing log: what a handler did or why it skipped. */
export interface PipelineLogEntry {
  time: string;
  source: string;
  text: string;
}

/** A file of a document and what the pipeline knows about it (Kernel Memory's field names). */
export interface FileDetails {
  id: string;
  name: string;
  size: number;
  mime_type: string;
  artifact_type: ArtifactType;
  partition_number: number;
  section_number: number;
  tags: TagCollection;
  /** Steps that already processed this file; a handler skips a file it has processed. */
  processed_by: string[];
  log: PipelineLogEntry[];
  /** Where the content came from, for web pages. */
  source_url?: string;
  /** Set when a step could not process this file; the document goes on with its other files. */
  error?: string;
}

/** A file made by a handler from an uploaded file. */
export interface GeneratedFileDetails extends FileDetails {
  parent_id: string;
  source_partition_id: string;
  content_sha256: string;
  /** A partition's breadcrumb (`Title › Section`), which its text starts with; absent when it has none. */
  context?: string;
}

/** An uploaded file with the files generated from it, keyed by name. */
export interface UploadedFileDetails extends FileDetails {
  generated_files: Record<string, GeneratedFileDetails>;
}

/** What is left of an earlier execution once a document is imported again. */
export interface PreviousExecution {
  execution_id: string;
  /** Names of the files that execution wrote; those the new one does not rewrite are removed. */
  files: string[];
}

/**
 * The state of one document's ingestion, saved as `{index}/{documentId}/__pipeline_status.json`.
 * Field names are Kernel Memory's, plus `failed` and `error` (Kernel Memory leaves failed
 * documents "in progress"; km does not).
 */
export interface DataPipeline {
  index: string;
  document_id: string;
  execution_id: string;
  steps: string[];
  remaining_steps: string[];
  completed_steps: string[];
  tags: TagCollection;
  creation: string;
  last_update: string;
  files: UploadedFileDetails[];
  /** Arguments for handlers, from the import request. */
  args: Record<string, unknown>;
  previous_executions_to_purge: PreviousExecution[];
  failed: boolean;
  error?: string;
  /** Deliveries of the current step so far (distributed orchestrator), kept across crashes. */
  step_attempts?: StepAttempts;
}

/**
 * How a step has fared so far in the current execution (the distributed orchestrator's count,
 * kept in the state so that it survives crashes; km's own, not Kernel Memory's).
 */
export interface StepAttempts {
  step: string;
  /** Attempts started. */
  count: number;
  /** Attempts that ended with an answer (a transient failure); `count − answered` died without one. */
  answered?: number;
  /** When the step first failed in this execution (ISO 8601): the retry budget counts from here. */
  first_failure?: string;
  /** The last failure's reason. */
  last_error?: string;
}

/** The public view of a pipeline, as `GET /upload-status` returns it (the type is @km/wire's). */
export type { DataPipelineStatus } from '@km/wire';

/** Files that failed on their own (the document went on without them), with the reason. */
export function failedFilesOf(pipeline: DataPipeline): Array<{ name: string; error: string }> {
  return pipeline.files.filter((f) => f.error !== undefined).map((f) => ({ name: f.name, error: f.error! }));
}

/** The document's error once every step ran but some files failed: it names each file and its reason. */
export function failedFilesReason(pipeline: DataPipeline): string | undefined {
  const failed = failedFilesOf(pipeline);
  if (failed.length === 0) return undefined;
  return `${failed.length} of ${pipeline.files.length} file(s) could not be processed: ${failed.map((f) => `${f.name}: ${f.error}`).join('; ')}`;
}

/**
 * True when every step ran and nothing failed. A document with a failed file is not complete
 * (see {@link toPipelineStatus}), whatever its other files did.
 */
export function isPipelineComplete(pipeline: DataPipeline): boolean {
  return pipeline.remaining_steps.length === 0 && !pipeline.failed && failedFilesOf(pipeline).length === 0;
}

/**
 * The status view of a pipeline, with Kernel Memory's fields. The rule for failures: once every
 * step ran, a document with any file in `failed_files` is `failed: true`, `completed: false`,
 * with an `error` naming each failed file and its reason, so that readiness checks
 * (`completed && !empty`, `isDocumentReady`, `waitForDocument`) never pass while content is missing.
 * While steps remain, a failed file shows only in `failed_files`.
 */
export function toPipelineStatus(pipeline: DataPipeline): DataPipelineStatus {
  const failedFiles = failedFilesOf(pipeline);
  const finishedWithFailedFiles = pipeline.remaining_steps.length === 0 && failedFiles.length > 0;
  const status: DataPipelineStatus = {
    completed: isPipelineComplete(pipeline),
    failed: pipeline.failed || finishedWithFailedFiles,
    empty: pipeline.files.length === 0,
    index: pipeline.index,
    document_id: pipeline.document_id,
    tags: pipeline.tags,
    creation: pipeline.creation,
    last_update: pipeline.last_update,
    steps: pipeline.steps,
    remaining_steps: pipeline.remaining_steps,
    completed_steps: pipeline.completed_steps,
  };
  const error = pipeline.error ?? (finishedWithFailedFiles ? failedFilesReason(pipeline) : undefined);
  if (error !== undefined) status.error = error;
  if (failedFiles.length > 0) status.failed_files = failedFiles;
  return status;
}

/**
 * Why a document's status says it failed, or undefined. Also reads statuses written by
 * services that still report `completed: true, failed: false` next to `failed_files`: a
 * failed file is a failure once no step remains.
 */
export function statusFailure(status: DataPipelineStatus): string | undefined {
  const failedFiles = status.failed_files ?? [];
  const files = failedFiles.map((f) => `${f.name}: ${f.error}`).join('; ');
  if (status.failed) {
    const error = status.error ?? 'unknown reason';
    return files && !failedFiles.every((f) => error.includes(f.name)) ? `${error} (failed files: ${files})` : error;
  }
  if (failedFiles.length > 0 && (status.completed || status.remaining_steps.length === 0)) {
    return `${failedFiles.length} file(s) could not be processed: ${files}`;
  }
  return undefined;
}

/** True when a status says the document is searchable in full: completed, not empty, no failed file. */
export function isStatusReady(status: DataPipelineStatus): boolean {
  return status.completed && !status.empty && statusFailure(status) === undefined;
}

/** Appends a line to a file's log. */
export function logOnFile(file: FileDetails, source: string, text: string): void {
  file.log.push({ time: new Date().toISOString(), source, text });
}
