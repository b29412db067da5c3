import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { Steps } from '../models/constants.js';
import type { DataPipeline } from '../models/data-pipeline.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';

/** Deletes an index from every memory DB and its folder from content storage. Idempotent. */
export async function deleteIndexEverywhere(context: PipelineContext, index: string): Promise<void> {
  for (const db of context.memoryDbs) await db.deleteIndex(index);
  await context.contentStorage.deleteIndexDirectory(index);
}

/** `private_delete_index`: deletes an index's records and files. */
export class DeleteIndexHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.deleteIndex;

  constructor(private readonly context: PipelineContext) {}

  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    await deleteIndexEverywhere(this.context, pipeline.index);
    return { result: 'success', pipeline };
  }
}
