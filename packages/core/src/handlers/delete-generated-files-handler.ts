import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { Steps } from '../models/constants.js';
import type { DataPipeline } from '../models/data-pipeline.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';

/** `delete_generated_files`: removes the files handlers made (uploads and status stay). */
export class DeleteGeneratedFilesHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.deleteGeneratedFiles;

  constructor(private readonly context: PipelineContext) {}

  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    for (const file of pipeline.files) {
      for (const name of Object.keys(file.generated_files)) {
        await this.context.contentStorage.deleteFile(pipeline.index, pipeline.document_id, name);
      }
      file.generated_files = {};
    }
    return { result: 'success', pipeline };
  }
}
