import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { KmError } from '../errors/km-error.js';
import { MimeTypes, Steps } from '../models/constants.js';
import { logOnFile, type DataPipeline, type GeneratedFileDetails, type UploadedFileDetails } from '../models/data-pipeline.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { generatedFilesOf, readTextFile, writeGeneratedFile } from '../pipeline/pipeline-files.js';
import { batches, mapWithConcurrency } from '../util/concurrency.js';
import { embeddingFileName, legacyEmbeddingFileNameOf, parseEmbeddingFile, type EmbeddingFile } from './embedding-file.js';
import { readIngestionArgs } from '../validation/km-args.js';
import { markProcessed, pendingFiles } from './handler-utils.js';
import { embeddingAttributes, tokenAttributes } from '../tracing/model-spans.js';
import { withSpan } from '../tracing/with-span.js';

interface PendingPartition {
  file: UploadedFileDetails;
  partition: GeneratedFileDetails;
  name: string;
  text: string;
}

/** Artifacts that become memory records. */
export const EMBEDDABLE_ARTIFACTS = ['text_partition', 'synthetic_data'] as const;

/** Model name used in file names and payloads for a generator. */
export function generatorName(generator: { modelName?: string; constructor: { name: string } }): string {
  return generator.modelName ?? generator.constructor.name;
}

/**
 * `gen_embeddings`: embeds every partition (and summary) in batches of the generator's batch
 * size with bounded concurrency. A partition whose text and generator are unchanged since an
 * earlier run keeps its stored vector, so re-importing a document only pays for what changed.
 * Without an embedding generator the step logs and does nothing (keyword-only memory).
 * Request arg: `custom_embedding_generation_batch_size_int` (texts per call).
 */
export class GenerateEmbeddingsHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.genEmbeddings;

  constructor(private readonly context: PipelineContext) {}

  async invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    const { embeddingGenerator: generator, embedding } = this.context;
    const files = pendingFiles(pipeline, this.stepName);
    if (!generator) {
      for (const file of files) {
        logOnFile(file, this.stepName, 'no embedding generator configured, skipped');
        markProcessed(file, this.stepName);
      }
      return { result: 'success', pipeline };
    }
    await generator.ready?.();
    const model = generatorName(generator);
    const pending: PendingPartition[] = [];
    let reused = 0;
    for (const file of files) {
      for (const partition of generatedFilesOf(file, ...EMBEDDABLE_ARTIFACTS)) {
        const name = embeddingFileName(partition.name, model);
        const existing = await this.storedEmbedding(pipeline, partition.name, name, model);
        if (existing && existing.generator === model && existing.source_sha256 === partition.content_sha256) {
          await this.record(pipeline, file, partition, name, existing);
          reused++;
          continue;
        }
        pending.push({ file, partition, name, text: await readTextFile(this.context, pipeline, partition.name) });
      }
    }
    // The request's batch size, within the generator's own limit when it declares one.
    const requested = readIngestionArgs(pipeline.args).embeddingBatchSize;
    const size = Math.max(1, Math.min(requested ?? generator.maxBatchSize ?? 1, generator.maxBatchSize ?? Infinity));
    await mapWithConcurrency(batches(pending, size), embedding.concurrency, async (batch) => {
      signal?.throwIfAborted();
      const texts = batch.map((p) => p.text);
      const vectors = await withSpan('km.embeddings', embeddingAttributes(model, 'document', texts.length), (span) => {
        if (span.isRecording()) span.setAttributes(tokenAttributes(texts.reduce((sum, t) => sum + generator.tokenizer.countTokens(t), 0)));
        return generator.generateEmbeddings(texts, signal, { purpose: 'document' });
      });
      if (vectors.length !== batch.length) {
        throw new KmError('invalid_argument', `${model} returned ${vectors.length} embeddings for ${batch.length} texts`);
      }
      for (let i = 0; i < batch.length; i++) {
        const p = batch[i]!;
        const vector = vectors[i]!;
        const content: EmbeddingFile = {
          generator: model,
          vector_size: vector.length,
          source_sha256: p.partition.content_sha256,
          timestamp: new Date().toISOString(),
          vector: Array.from(vector),
        };
        await this.record(pipeline, p.file, p.partition, p.name, content);
      }
    });
    for (const file of files) {
      logOnFile(file, this.stepName, `embeddings by ${model}`);
      markProcessed(file, this.stepName);
    }
    if (reused > 0) this.context.logger.debug('unchanged partitions kept their embeddings', { reused, documentId: pipeline.document_id });
    return { result: 'success', pipeline };
  }

  /**
   * The embedding an earlier run stored for a partition: under its current name, else (a
   * document written by an earlier version) under the legacy name, unless an upload has that name.
   */
  private async storedEmbedding(
    pipeline: DataPipeline,
    partitionName: string,
    name: string,
    model: string,
  ): Promise<EmbeddingFile | undefined> {
    const { contentStorage } = this.context;
    const legacy = legacyEmbeddingFileNameOf(partitionName, model);
    const uploaded = new Set(pipeline.files.map((f) => f.name));
    for (const candidate of [name, ...(legacy !== undefined && !uploaded.has(legacy) ? [legacy] : [])]) {
      if (await contentStorage.fileExists(pipeline.index, pipeline.document_id, candidate)) {
        return parseEmbeddingFile(await contentStorage.readFile(pipeline.index, pipeline.document_id, candidate));
      }
    }
    return undefined;
  }

  private async record(
    pipeline: DataPipeline,
    file: UploadedFileDetails,
    partition: GeneratedFileDetails,
    name: string,
    content: EmbeddingFile,
  ): Promise<void> {
    const details = await writeGeneratedFile(this.context, pipeline, file, {
      name,
      content: JSON.stringify(content),
      mimeType: MimeTypes.textEmbeddingVector,
      artifactType: 'text_embedding_vector',
      partitionNumber: partition.partition_number,
      sectionNumber: partition.section_number,
      sourcePartitionId: partition.id,
    });
    details.content_sha256 = content.source_sha256;
  }
}
