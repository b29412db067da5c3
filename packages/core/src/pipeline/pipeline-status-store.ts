import type { IContentStorage } from '../contracts/content-storage.js';
import { KmError, isKmError } from '../errors/km-error.js';
import { PIPELINE_STATUS_FILE } from '../models/constants.js';
import type { DataPipeline } from '../models/data-pipeline.js';

/** Reads and writes `{index}/{documentId}/__pipeline_status.json`. */
export class PipelineStatusStore {
  constructor(private readonly storage: IContentStorage) {}

  /** The saved pipeline, or undefined when the document is unknown. */
  async read(index: string, documentId: string): Promise<DataPipeline | undefined> {
    let data: Buffer;
    try {
      data = await this.storage.readFile(index, documentId, PIPELINE_STATUS_FILE);
    } catch (error) {
      if (isKmError(error, 'file_not_found')) return undefined;
      throw error;
    }
    try {
      const pipeline = JSON.parse(data.toString('utf8')) as DataPipeline;
      pipeline.failed ??= false;
      pipeline.args ??= {};
      pipeline.previous_executions_to_purge ??= [];
      return pipeline;
    } catch (cause) {
      throw new KmError('storage_corrupt', `status of document "${documentId}" in index "${index}" is not valid JSON`, { cause });
    }
  }

  /** Saves the pipeline atomically, stamping `last_update`. */
  async write(pipeline: DataPipeline): Promise<void> {
    pipeline.last_update = new Date().toISOString();
    await this.storage.writeFile(pipeline.index, pipeline.document_id, PIPELINE_STATUS_FILE, JSON.stringify(pipeline, null, 1));
  }
}
