import type { IContentStorage } from '../contracts/content-storage.js';
import { KmError, isKmError } from '../errors/km-error.js';
import { PIPELINE_STATUS_FILE } from '../models/constants.js';
import type { DataPipeline } from '../models/data-pipeline.js';

/**
 * Reads and writes `{index}/{documentId}/__pipeline_status.json`. On a storage with conditional
 * writes (`readFileVersion` + `writeFileIfVersion`), a pipeline written back is written only if
 * nobody changed the state since this store read it: a worker that lost the race gets a
 * transient `write_conflict` (its step is retried and reads the winner's state) instead of
 * silently overwriting another worker's progress.
 */
export class PipelineStatusStore {
  /** The version each pipeline object was read at (absent: not read here, written unconditionally). */
  private readonly versions = new WeakMap<DataPipeline, string>();

  constructor(private readonly storage: IContentStorage) {}

  /** The saved pipeline, or undefined when the document is unknown. */
  async read(index: string, documentId: string): Promise<DataPipeline | undefined> {
    let data: Buffer;
    let version: string | undefined;
    try {
      if (this.conditional) ({ data, version } = await this.storage.readFileVersion!(index, documentId, PIPELINE_STATUS_FILE));
      else data = await this.storage.readFile(index, documentId, PIPELINE_STATUS_FILE);
    } catch (error) {
      if (isKmError(error, 'file_not_found')) return undefined;
      throw error;
    }
    try {
      const pipeline = JSON.parse(data.toString('utf8')) as DataPipeline;
      pipeline.failed ??= false;
      pipeline.args ??= {};
      pipeline.previous_executions_to_purge ??= [];
      if (version !== undefined) this.versions.set(pipeline, version);
      return pipeline;
    } catch (cause) {
      throw new KmError('storage_corrupt', `status of document "${documentId}" in index "${index}" is not valid JSON`, { cause });
    }
  }

  /** Saves the pipeline atomically, stamping `last_update`. */
  async write(pipeline: DataPipeline): Promise<void> {
    pipeline.last_update = new Date().toISOString();
    const json = JSON.stringify(pipeline, null, 1);
    const version = this.versions.get(pipeline);
    if (!this.conditional || version === undefined) {
      await this.storage.writeFile(pipeline.index, pipeline.document_id, PIPELINE_STATUS_FILE, json);
      return;
    }
    const next = await this.storage.writeFileIfVersion!(pipeline.index, pipeline.document_id, PIPELINE_STATUS_FILE, json, version);
    this.versions.set(pipeline, next);
  }

  /**
   * A handler may return its changes as a new pipeline object: it takes over the version the
   * old one was read at, so its writes stay conditional.
   */
  carry(from: DataPipeline, to: DataPipeline): void {
    if (from === to) return;
    const version = this.versions.get(from);
    if (version !== undefined) this.versions.set(to, version);
  }

  /**
   * The next write of this pipeline is unconditional: after a deletion step that may have removed
   * the state file itself, a failed step must be able to write its state back (and be retried).
   */
  forget(pipeline: DataPipeline): void {
    this.versions.delete(pipeline);
  }

  private get conditional(): boolean {
    return typeof this.storage.readFileVersion === 'function' && typeof this.storage.writeFileIfVersion === 'function';
  }
}

/**
 * For callers that replace a document's state whatever it was: an unreadable (corrupt) state
 * counts as none, but a storage that cannot be read now (unreachable, refused credentials) is
 * an error. Taking it for "no document" would treat an existing document as new and, if the
 * upload then failed, delete its folder.
 */
export function ignoreCorruptState(error: unknown): undefined {
  if (isKmError(error, 'storage_corrupt')) return undefined;
  throw error;
}
