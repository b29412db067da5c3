import type { DocumentFileDetails, DocumentState, DocumentSummary } from '@km/wire';
import { Steps } from '../models/constants.js';
import { toPipelineStatus, type DataPipeline } from '../models/data-pipeline.js';
import { cloneTags } from '../models/tag-collection.js';

/** Where a document's ingestion stands, from its pipeline state. */
export function documentStateOf(pipeline: DataPipeline): { state: DocumentState; error?: string } {
  if (pipeline.steps.includes(Steps.deleteDocument) || pipeline.steps.includes(Steps.deleteIndex)) return { state: 'deleting' };
  const status = toPipelineStatus(pipeline);
  if (status.failed) return { state: 'failed', error: status.error ?? 'the document failed without a reason' };
  return { state: status.completed ? 'completed' : 'in_progress' };
}

/** A document as listings show it: its state, own tags and uploaded files. */
export function toDocumentSummary(pipeline: DataPipeline): DocumentSummary {
  const { state, error } = documentStateOf(pipeline);
  const files = pipeline.files.map((f) => ({
    name: f.name,
    size: f.size,
    mimeType: f.mime_type,
    ...(f.error !== undefined ? { error: f.error } : {}),
  }));
  return {
    index: pipeline.index,
    documentId: pipeline.document_id,
    state,
    ...(error !== undefined ? { error } : {}),
    tags: cloneTags(pipeline.tags),
    files,
    size: files.reduce((sum, f) => sum + f.size, 0),
    creation: pipeline.creation,
    lastUpdate: pipeline.last_update,
    steps: [...pipeline.steps],
    remainingSteps: [...pipeline.remaining_steps],
  };
}

/** Every file stored with a document: each upload, then the files the pipeline made from it, by partition. */
export function toDocumentFiles(pipeline: DataPipeline): DocumentFileDetails[] {
  const files: DocumentFileDetails[] = [];
  for (const upload of pipeline.files) {
    files.push({
      name: upload.name,
      size: upload.size,
      mimeType: upload.mime_type,
      artifactType: upload.artifact_type,
      partitionNumber: upload.partition_number,
      sectionNumber: upload.section_number,
    });
    const generated = Object.values(upload.generated_files ?? {}).sort(
      (a, b) => a.partition_number - b.partition_number || a.artifact_type.localeCompare(b.artifact_type) || a.name.localeCompare(b.name),
    );
    for (const file of generated) {
      files.push({
        name: file.name,
        size: file.size,
        mimeType: file.mime_type,
        artifactType: file.artifact_type,
        parent: upload.name,
        partitionNumber: file.partition_number,
        sectionNumber: file.section_number,
      });
    }
  }
  return files;
}
