import type { ExtractedContent, IContentDecoder } from '../contracts/content-decoder.js';
import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import { isKmError, KmError } from '../errors/km-error.js';
import { MimeTypes, Steps } from '../models/constants.js';
import { logOnFile, type DataPipeline } from '../models/data-pipeline.js';
import { checkEmbeddingModelName, readIngestionArgs } from '../validation/km-args.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { DerivedFileNames } from '../pipeline/internal-file-names.js';
import { writeGeneratedFile } from '../pipeline/pipeline-files.js';
import { missingDecoderReason } from '../decoders/missing-decoder.js';
import { markProcessed, pendingFiles } from './handler-utils.js';

/**
 * Runs a decoder with a time limit: its signal aborts at the limit, and the file fails then
 * even if the decoder does not listen (its work is abandoned, never awaited).
 */
async function decodeWithTimeLimit(
  decoder: IContentDecoder,
  data: Buffer,
  fileName: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<ExtractedContent> {
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), timeoutMs);
  const combined = signal ? AbortSignal.any([signal, limit.signal]) : limit.signal;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<ExtractedContent>((resolve, reject) => {
      onAbort = () =>
        reject(
          limit.signal.aborted
            ? new KmError('content_too_large', `${decoder.name} took longer than ${timeoutMs} ms (decoderTimeoutMs)`)
            : (signal?.reason ?? new KmError('aborted', 'aborted')),
        );
      combined.addEventListener('abort', onAbort, { once: true });
      decoder.decode(data, { fileName, signal: combined }).then(resolve, (e: unknown) => (combined.aborted ? onAbort!() : reject(e)));
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) combined.removeEventListener('abort', onAbort);
  }
}

/** NUL characters, which decoders return for unmapped glyphs (pdf.js) or binary bytes, and which no memory DB stores. */
const NUL = /\u0000/g;
/** A UTF-16 surrogate half without its partner. */
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Decoded text as memory DBs can store it: NUL characters removed, lone surrogates replaced
 * by U+FFFD (what `String.prototype.toWellFormed` does).
 */
export function cleanExtractedText(text: string): string {
  return text.replace(NUL, '').replace(LONE_SURROGATES, '\ufffd');
}

function cleanContent(content: ExtractedContent): ExtractedContent {
  return { ...content, sections: content.sections.map((section) => ({ ...section, text: cleanExtractedText(section.text) })) };
}

/** Name of the JSON file holding the sections extracted from `fileName`. */
export const extractedContentName = (fileName: string): string => DerivedFileNames.extractedContent(fileName);

/**
 * `extract`: turns each uploaded file into text with sections, through the decoder registered
 * for its MIME type. Empty files are logged on the file and skipped, as Kernel Memory does. A
 * file of a type no decoder reads, or that its decoder cannot read, fails alone with the reason
 * on the file (naming the package to install when one exists); the document then ends failed
 * (see `BasePipelineOrchestrator.complete`). The step itself fails only when every file failed.
 */
export class TextExtractionHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.extract;

  constructor(private readonly context: PipelineContext) {}

  async invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    const { contentStorage, decoders, logger } = this.context;
    // The first step refuses an embedding model the pipeline could not honour, before any work.
    try {
      await checkEmbeddingModelName(readIngestionArgs(pipeline.args).embeddingModelName, this.context.embeddingGenerator);
    } catch (error) {
      if (!isKmError(error, 'invalid_argument')) throw error;
      return { result: 'fatal', pipeline, error: error.message };
    }
    for (const file of pendingFiles(pipeline, this.stepName)) {
      signal?.throwIfAborted();
      if (file.size === 0) {
        logOnFile(file, this.stepName, 'empty file, nothing to extract');
        logger.warn('empty file skipped', { index: pipeline.index, documentId: pipeline.document_id, file: file.name });
        markProcessed(file, this.stepName);
        continue;
      }
      const decoder = decoders.find(file.mime_type);
      if (!decoder) {
        file.error = missingDecoderReason(file.mime_type);
        logOnFile(file, this.stepName, `extraction failed: ${file.error}`);
        logger.warn('file type without decoder', { file: file.name, mimeType: file.mime_type });
        markProcessed(file, this.stepName);
        continue;
      }
      // Read outside the try: a storage that cannot give the file (missing, unreachable) fails the
      // step, which is retried, rather than marking the file as one that cannot be decoded.
      const data = await contentStorage.readFile(pipeline.index, pipeline.document_id, file.name);
      try {
        const content = cleanContent(
          await decodeWithTimeLimit(decoder, data, file.name, this.context.extraction?.decoderTimeoutMs ?? 120_000, signal),
        );
        const text = content.sections.map((s) => s.text).join('\n\n');
        await writeGeneratedFile(this.context, pipeline, file, {
          name: extractedContentName(file.name),
          content: JSON.stringify(content),
          mimeType: MimeTypes.json,
          artifactType: 'extracted_content',
        });
        await writeGeneratedFile(this.context, pipeline, file, {
          name: DerivedFileNames.extractedText(file.name),
          content: text,
          mimeType: content.mimeType,
          artifactType: 'extracted_text',
        });
        logOnFile(file, this.stepName, `extracted ${text.length} characters in ${content.sections.length} section(s) with ${decoder.name}`);
      } catch (error) {
        if (signal?.aborted) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        file.error = reason;
        logOnFile(file, this.stepName, `extraction failed: ${reason}`);
        logger.warn('file extraction failed', { file: file.name, reason });
      }
      markProcessed(file, this.stepName);
    }
    const failed = pipeline.files.filter((f) => f.error !== undefined);
    if (failed.length > 0 && failed.length === pipeline.files.length) {
      return { result: 'fatal', pipeline, error: failed.map((f) => `${f.name}: ${f.error}`).join('; ') };
    }
    return { result: 'success', pipeline };
  }
}
