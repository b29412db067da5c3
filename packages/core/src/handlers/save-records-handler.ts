import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { ReservedTags, Steps } from '../models/constants.js';
import { logOnFile, type DataPipeline, type GeneratedFileDetails, type UploadedFileDetails } from '../models/data-pipeline.js';
import { MemoryFilters } from '../models/memory-filter.js';
import { PayloadFields, recordId, type MemoryRecord } from '../models/memory-record.js';
import { addTag, cloneTags, mergeTags } from '../models/tag-collection.js';
import { listRecordIds, upsertRecords } from '../memory-storage/memory-db-operations.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { generatedFilesOf, readTextFile } from '../pipeline/pipeline-files.js';
import { parseEmbeddingFile } from './embedding-file.js';
import { EMBEDDABLE_ARTIFACTS } from './generate-embeddings-handler.js';
import { markProcessed, pendingFiles } from './handler-utils.js';

/**
 * `save_records`: writes one record per partition (and summary) to every memory DB, in
 * batches, creating a missing index. A partition's context goes to `payload.context`. Then removes every record of the document that this
 * execution did not write, so nothing stale from an earlier import survives.
 */
export class SaveRecordsHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.saveRecords;

  constructor(private readonly context: PipelineContext) {}

  async invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    const { memoryDbs } = this.context;
    const savedBefore = pipeline.files.some((f) => f.processed_by.includes(this.stepName));
    for (const file of pendingFiles(pipeline, this.stepName)) {
      signal?.throwIfAborted();
      const records: MemoryRecord[] = [];
      for (const partition of generatedFilesOf(file, ...EMBEDDABLE_ARTIFACTS)) {
        records.push(await this.toRecord(pipeline, file, partition));
      }
      for (const db of memoryDbs) await upsertRecords(db, pipeline.index, records);
      logOnFile(file, this.stepName, `${records.length} record(s) saved`);
      markProcessed(file, this.stepName);
    }
    const expected = new Set(
      pipeline.files.flatMap((f) => generatedFilesOf(f, ...EMBEDDABLE_ARTIFACTS).map((p) => recordId(pipeline.document_id, p.id))),
    );
    if (expected.size === 0 && (savedBefore || pipeline.completed_steps.includes(Steps.deleteGeneratedFiles))) {
      // Nothing to compare with (the partitions are gone, or an earlier save_records of this
      // execution saved them): purging would delete every record of the document.
      this.context.logger.warn('save_records found no partition to save after records were saved; nothing purged', {
        index: pipeline.index,
        documentId: pipeline.document_id,
      });
      return { result: 'success', pipeline };
    }
    for (const db of memoryDbs) {
      const existing = await listRecordIds(db, pipeline.index, [MemoryFilters.byDocument(pipeline.document_id)]);
      for (const id of existing) if (!expected.has(id)) await db.delete(pipeline.index, { id });
    }
    return { result: 'success', pipeline };
  }

  private async toRecord(pipeline: DataPipeline, file: UploadedFileDetails, partition: GeneratedFileDetails): Promise<MemoryRecord> {
    const embedding = Object.values(file.generated_files).find(
      (g) => g.artifact_type === 'text_embedding_vector' && g.source_partition_id === partition.id,
    );
    let vector: number[] = [];
    let generator = '';
    if (embedding) {
      const parsed = parseEmbeddingFile(await this.context.contentStorage.readFile(pipeline.index, pipeline.document_id, embedding.name));
      if (parsed) {
        vector = parsed.vector;
        generator = parsed.generator;
      }
    }
    const tags = mergeTags(cloneTags(pipeline.tags), partition.tags);
    addTag(tags, ReservedTags.documentId, pipeline.document_id);
    addTag(tags, ReservedTags.fileId, file.id);
    addTag(tags, ReservedTags.filePart, partition.id);
    addTag(tags, ReservedTags.partitionNumber, String(partition.partition_number));
    addTag(tags, ReservedTags.sectionNumber, String(partition.section_number));
    addTag(tags, ReservedTags.fileType, file.mime_type);
    const text = await readTextFile(this.context, pipeline, partition.name);
    const payload: Record<string, unknown> = {
      [PayloadFields.file]: file.name,
      [PayloadFields.text]: text,
      [PayloadFields.vectorGenerator]: generator,
      [PayloadFields.lastUpdate]: new Date().toISOString(),
    };
    // Only a context the text starts with: readers may cut `context + "\n\n"` off the text.
    if (partition.context && text.startsWith(`${partition.context}\n\n`)) payload[PayloadFields.context] = partition.context;
    if (file.source_url) payload[PayloadFields.url] = file.source_url;
    return { id: recordId(pipeline.document_id, partition.id), vector, tags, payload };
  }
}
