import type { IPipelineStepHandler } from '../contracts/pipeline-step-handler.js';
import { Steps } from '../models/constants.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { DeleteDocumentHandler } from './delete-document-handler.js';
import { DeleteGeneratedFilesHandler } from './delete-generated-files-handler.js';
import { DeleteIndexHandler } from './delete-index-handler.js';
import { GenerateEmbeddingsHandler } from './generate-embeddings-handler.js';
import { SaveRecordsHandler } from './save-records-handler.js';
import { SummarizationHandler } from './summarization-handler.js';
import { TextExtractionHandler } from './text-extraction-handler.js';
import { TextPartitioningHandler } from './text-partitioning-handler.js';

/** `gen_embeddings` under Kernel Memory's other step name (km's handler already runs batches concurrently). */
class ParallelEmbeddingsHandler extends GenerateEmbeddingsHandler {
  override readonly stepName: string = Steps.genEmbeddingsParallel;
}

/** `summarize` under Kernel Memory's other step name. */
class ParallelSummarizationHandler extends SummarizationHandler {
  override readonly stepName: string = Steps.summarizeParallel;
}

/**
 * The built-in handlers of every step name in DESIGN §5, plus Kernel Memory's
 * `gen_embeddings_parallel` and `summarize_parallel`, which run the same handlers.
 */
export function createDefaultHandlers(context: PipelineContext): IPipelineStepHandler[] {
  return [
    new TextExtractionHandler(context),
    new TextPartitioningHandler(context),
    new GenerateEmbeddingsHandler(context),
    new ParallelEmbeddingsHandler(context),
    new SaveRecordsHandler(context),
    new SummarizationHandler(context),
    new ParallelSummarizationHandler(context),
    new DeleteGeneratedFilesHandler(context),
    new DeleteDocumentHandler(context),
    new DeleteIndexHandler(context),
  ];
}
