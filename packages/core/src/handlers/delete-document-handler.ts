import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { Steps } from '../models/constants.js';
import type { DataPipeline } from '../models/data-pipeline.js';
import { MemoryFilters } from '../models/memory-filter.js';
import { listRecordIds } from '../memory-storage/memory-db-operations.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';

/** Removes a document's records from every memory DB, then its folder. Idempotent. */
export async function deleteDocumentEverywhere(context: PipelineContext, index: string, documentId: string): Promise<void> {
  for (const db of context.memoryDbs) {
    for (const id of await listRecordIds(db, index, [MemoryFilters.byDocument(documentId)])) await db.delete(index, { id });
  }
  await context.contentStorage.deleteDocumentDirectory(index, documentId);
}

/** `private_delete_document`: deletes a document's records and files. */
export class DeleteDocumentHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.deleteDocument;

  constructor(private readonly context: PipelineContext) {}

  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    await deleteDocumentEverywhere(this.context, pipeline.index, pipeline.document_id);
    return { result: 'success', pipeline };
  }
}
