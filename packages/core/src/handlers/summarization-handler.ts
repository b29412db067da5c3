import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import type { ITextGenerator } from '../contracts/text-generator.js';
import { MimeTypes, ReservedTags, Steps, SYNTHETIC_SUMMARY } from '../models/constants.js';
import { logOnFile, type DataPipeline } from '../models/data-pipeline.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { generatedFilesOf, readTextFile, writeGeneratedFile } from '../pipeline/pipeline-files.js';
import { chunkText } from '../text-chunker/text-chunker.js';
import { defaultPromptProvider, PromptNames, readPrompt, type PromptProviderContext } from '../search/prompt-provider.js';
import { renderPrompt } from '../search/prompts.js';
import { markProcessed, pendingFiles } from './handler-utils.js';

const ANSWER_TOKENS = 500;

/**
 * `summarize`: writes a summary of each file's extracted text (map-reduce over chunks that
 * fit the text generator's context), tagged `__synth:summary`. The next steps embed and
 * store it like a partition. Needs a text generator. The prompt is the `summarize` prompt of
 * the context's prompt provider (see `KernelMemoryBuilder.withPromptProvider`).
 */
export class SummarizationHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.summarize;

  constructor(private readonly context: PipelineContext & PromptProviderContext) {}

  async invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    const generator = this.context.textGenerator;
    if (!generator) {
      return { result: 'fatal', pipeline, error: 'the summarize step needs a text generator; none is configured' };
    }
    for (const file of pendingFiles(pipeline, this.stepName)) {
      signal?.throwIfAborted();
      const [extracted] = generatedFilesOf(file, 'extracted_text');
      if (extracted) {
        const text = await readTextFile(this.context, pipeline, extracted.name);
        if (text.trim()) {
          const prompt = readPrompt(this.context.promptProvider ?? defaultPromptProvider, PromptNames.summarize);
          const summary = await summarize(generator, prompt, text, signal);
          await writeGeneratedFile(this.context, pipeline, file, {
            name: `${file.name}.summary.txt`,
            content: summary,
            mimeType: MimeTypes.plainText,
            artifactType: 'synthetic_data',
            tags: { [ReservedTags.synthetic]: [SYNTHETIC_SUMMARY] },
          });
          logOnFile(file, this.stepName, `summary of ${summary.length} characters`);
        }
      }
      markProcessed(file, this.stepName);
    }
    return { result: 'success', pipeline };
  }
}

async function summarize(generator: ITextGenerator, template: string, text: string, signal?: AbortSignal): Promise<string> {
  const promptTokens = generator.tokenizer.countTokens(renderPrompt(template, { input: '' }));
  const room = Math.max(256, generator.maxTokenTotal - promptTokens - ANSWER_TOKENS);
  let current = text;
  for (let round = 0; round < 5; round++) {
    const chunks = chunkText(current, generator.tokenizer, { maxTokensPerChunk: room, overlapTokens: 0 });
    const parts: string[] = [];
    for (const chunk of chunks) {
      let out = '';
      for await (const piece of generator.generate(renderPrompt(template, { input: chunk }), {
        maxTokens: ANSWER_TOKENS,
        temperature: 0,
        ...(signal ? { signal } : {}),
      })) {
        out += piece;
      }
      parts.push(out.trim());
    }
    current = parts.join('\n\n');
    if (chunks.length === 1) break;
  }
  return current;
}
