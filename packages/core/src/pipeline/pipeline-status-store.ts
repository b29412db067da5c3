import type { IContentStorage } from '../contracts/content-storage.js';
import { KmError, isKmError } from '../errors/km-error.js';
import { LEGACY_PIPELINE_STATUS_FILE, PIPELINE_STATUS_FILE } from './internal-file-names.js';
import type { DataPipeline } from '../models/data-pipeline.js';

/**
 * Reads and writes `{index}/{documentId}/..km.pipeline_status.json`. On a storage with conditional
 * writes (`readFileVersion` + `writeFileIfVersion`), a pipeline written back is written only if
 * nobody changed the state since this store read it: a worker that lost the race gets a
 * transient `write_conflict` (its step is retried and reads the winner's state) instead of
 * silently overwriting another worker's progress.
 *
 * A document written by an earlier version keeps its state in `__pipeline_status.json`: it is
 * read when the current file is absent (if it is the state of that document, else it is taken
 * for an upload of that name), and the first write moves it to the current name.
 */
export class PipelineStatusStore {
  /** The version each pipeline object was read at (absent: not read here, written unconditionally). */
  private readonly versions = new WeakMap<DataPipeline, string>();
  /** Pipelines read from the legacy file: their next write creates the current one and removes the legacy one. */
  private readonly legacy = new WeakSet<DataPipeline>();

  constructor(private readonly storage: IContentStorage) {}

  /** The saved pipeline, or undefined when the document is unknown. */
  async read(index: string, documentId: string): Promise<DataPipeline | undefined> {
    let data: Buffer;
    let version: string | undefined;
    try {
      if (this.conditional) ({ data, version } = await this.storage.readFileVersion!(index, documentId, PIPELINE_STATUS_FILE));
      else data = await this.storage.readFile(index, documentId, PIPELINE_STATUS_FILE);
    } catch (error) {
      if (isKmError(error, 'file_not_found')) return this.readLegacy(index, documentId);
      throw error;
    }
    let pipeline: DataPipeline;
    try {
      pipeline = parseState(data);
    } catch (cause) {
      throw new KmError('storage_corrupt', `status of document "${documentId}" in index "${index}" is not valid JSON`, { cause });
    }
    if (version !== undefined) this.versions.set(pipeline, version);
    return pipeline;
  }

  /**
   * The state an earlier version saved in `__pipeline_status.json`, or undefined when there is
   * none. A file of that name that is not this document's state (not JSON, another document) is
   * an upload of a current version, not a state.
   */
  private async readLegacy(index: string, documentId: string): Promise<DataPipeline | undefined> {
    let data: Buffer;
    try {
      data = await this.storage.readFile(index, documentId, LEGACY_PIPELINE_STATUS_FILE);
    } catch (error) {
      if (isKmError(error, 'file_not_found')) return undefined;
      throw error;
    }
    let pipeline: DataPipeline;
    try {
      pipeline = parseState(data);
    } catch {
      return undefined;
    }
    if (pipeline.index !== index || pipeline.document_id !== documentId || !Array.isArray(pipeline.files)) return undefined;
    this.legacy.add(pipeline);
    return pipeline;
  }

  /** Saves the pipeline atomically, stamping `last_update`. */
  async write(pipeline: DataPipeline): Promise<void> {
    pipeline.last_update = new Date().toISOString();
    const json = JSON.stringify(pipeline, null, 1);
    const version = this.versions.get(pipeline);
    if (this.legacy.has(pipeline)) {
      // The first write of a state read from the legacy file: creates the current file (only if
      // no other worker did), then removes the legacy one unless an upload has its name.
      if (this.conditional)
        this.versions.set(
          pipeline,
          await this.storage.writeFileIfVersion!(pipeline.index, pipeline.document_id, PIPELINE_STATUS_FILE, json, null),
        );
      else await this.storage.writeFile(pipeline.index, pipeline.document_id, PIPELINE_STATUS_FILE, json);
      this.legacy.delete(pipeline);
      if (!pipeline.files.some((f) => f.name === LEGACY_PIPELINE_STATUS_FILE)) {
        await this.storage.deleteFile(pipeline.index, pipeline.document_id, LEGACY_PIPELINE_STATUS_FILE);
      }
      return;
    }
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
    if (this.legacy.has(from)) this.legacy.add(to);
  }

  /**
   * The next write of this pipeline is unconditional: after a deletion step that may have removed
   * the state file itself, a failed step must be able to write its state back (and be retried).
   */
  forget(pipeline: DataPipeline): void {
    this.versions.delete(pipeline);
    this.legacy.delete(pipeline);
  }

  private get conditional(): boolean {
    return typeof this.storage.readFileVersion === 'function' && typeof this.storage.writeFileIfVersion === 'function';
  }
}

/** A saved state, its defaults filled in; throws when it is not JSON. */
function parseState(data: Buffer): DataPipeline {
  const pipeline = JSON.parse(data.toString('utf8')) as DataPipeline;
  pipeline.failed ??= false;
  pipeline.args ??= {};
  pipeline.previous_executions_to_purge ??= [];
  return pipeline;
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
