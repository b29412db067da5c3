import type { IPipelineStepHandler } from '../contracts/pipeline-step-handler.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { DeleteDocumentHandler } from './delete-document-handler.js';
import { DeleteGeneratedFilesHandler } from './delete-generated-files-handler.js';
import { DeleteIndexHandler } from './delete-index-handler.js';
import { GenerateEmbeddingsHandler } from './generate-embeddings-handler.js';
import { SaveRecordsHandler } from './save-records-handler.js';
import { SummarizationHandler } from './summarization-handler.js';
import { TextExtractionHandler } from './text-extraction-handler.js';
import { TextPartitioningHandler } from './text-partitioning-handler.js';

/** The built-in handlers of every step name in DESIGN §5. */
export function createDefaultHandlers(context: PipelineContext): IPipelineStepHandler[] {
  return [
    new TextExtractionHandler(context),
    new TextPartitioningHandler(context),
    new GenerateEmbeddingsHandler(context),
    new SaveRecordsHandler(context),
    new SummarizationHandler(context),
    new DeleteGeneratedFilesHandler(context),
    new DeleteDocumentHandler(context),
    new DeleteIndexHandler(context),
  ];
}
