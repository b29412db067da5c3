import type { DataPipeline, UploadedFileDetails } from '../models/data-pipeline.js';

/** Uploaded files the step has not processed yet. */
export function pendingFiles(pipeline: DataPipeline, step: string): UploadedFileDetails[] {
  return pipeline.files.filter((f) => !f.processed_by.includes(step));
}

/** Records that the step processed a file, so a re-run skips it. */
export function markProcessed(file: { processed_by: string[] }, step: string): void {
  if (!file.processed_by.includes(step)) file.processed_by.push(step);
}

/** Reads a numeric handler argument from the request's `args`, with bounds. */
export function numberArg(args: Record<string, unknown>, name: string, fallback: number): number {
  const value = args[name];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return fallback;
}
