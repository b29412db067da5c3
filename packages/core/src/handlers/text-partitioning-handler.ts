import { CL100KTokenizer } from '../ai/gpt-tokenizer.js';
import type { ExtractedContent } from '../contracts/content-decoder.js';
import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { MimeTypes, Steps } from '../models/constants.js';
import { logOnFile, type DataPipeline } from '../models/data-pipeline.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { DerivedFileNames } from '../pipeline/internal-file-names.js';
import { generatedFilesOf, readTextFile, writeGeneratedFile } from '../pipeline/pipeline-files.js';
import { HeadingPath } from '../text-chunker/heading-path.js';
import { chunkWithContext } from '../text-chunker/text-chunker.js';
import { readIngestionArgs } from '../validation/km-args.js';
import { markProcessed, pendingFiles } from './handler-utils.js';
import { cleanExtractedText } from './text-extraction-handler.js';

/** Name of partition `n` of `fileName`. */
export const partitionName = (fileName: string, n: number): string => DerivedFileNames.partition(fileName, n);

/**
 * `partition`: splits each file's extracted sections into chunks (token-based, sentence and
 * paragraph aware, markdown-aware, with overlap). Each chunk keeps its section number, and
 * starts with its context, the breadcrumb of the document's title and the headings it lies
 * under (`Handbook › Leave`, then a blank line), also kept apart on the partition's `context`.
 * Request args (KM's names, or km's own in brackets): `custom_partitioning_max_tokens_per_paragraph_int`
 * (`maxTokensPerChunk`), `custom_partitioning_overlapping_tokens_int` (`overlapTokens`),
 * `custom_partitioning_chunk_header_str` (`chunkHeader`).
 */
export class TextPartitioningHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.partition;

  constructor(private readonly context: PipelineContext) {}

  async invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    const { partitioning, embeddingGenerator, logger } = this.context;
    await embeddingGenerator?.ready?.();
    const tokenizer = embeddingGenerator?.tokenizer ?? new CL100KTokenizer();
    const args = readIngestionArgs(pipeline.args);
    let max = args.maxTokensPerChunk ?? partitioning.maxTokensPerChunk;
    if (embeddingGenerator && max > embeddingGenerator.maxTokens) {
      logger.warn('chunk size lowered to the embedding model limit', { requested: max, limit: embeddingGenerator.maxTokens });
      max = embeddingGenerator.maxTokens;
    }
    const overlap = Math.min(args.overlapTokens ?? partitioning.overlapTokens, Math.floor(max / 2));
    const chunkHeader = args.chunkHeader ?? partitioning.chunkHeader;

    for (const file of pendingFiles(pipeline, this.stepName)) {
      signal?.throwIfAborted();
      const [extracted] = generatedFilesOf(file, 'extracted_content');
      // A re-run replaces whatever an interrupted run wrote.
      for (const old of generatedFilesOf(file, 'text_partition')) delete file.generated_files[old.name];
      if (!extracted) {
        markProcessed(file, this.stepName);
        continue;
      }
      const content = JSON.parse(await readTextFile(this.context, pipeline, extracted.name)) as ExtractedContent;
      const options = {
        maxTokensPerChunk: max,
        overlapTokens: overlap,
        markdown: content.mimeType === MimeTypes.markdown,
        ...(chunkHeader ? { chunkHeader } : {}),
        // The extract step cleans the sections only; a title may hold NUL characters too.
        ...(content.title ? { title: cleanExtractedText(content.title) } : {}),
      };
      // One heading path through the sections: a page without a heading stays under the last one.
      const headings = new HeadingPath();
      let n = 0;
      for (const section of content.sections) {
        for (const chunk of chunkWithContext(section.text, tokenizer, options, headings)) {
          const partition = await writeGeneratedFile(this.context, pipeline, file, {
            name: partitionName(file.name, n),
            content: chunk.text,
            mimeType: MimeTypes.plainText,
            artifactType: 'text_partition',
            partitionNumber: n,
            sectionNumber: section.number,
          });
          if (chunk.context) partition.context = chunk.context;
          n++;
        }
      }
      logOnFile(file, this.stepName, `${n} partition(s) of at most ${max} tokens`);
      markProcessed(file, this.stepName);
    }
    return { result: 'success', pipeline };
  }
}
