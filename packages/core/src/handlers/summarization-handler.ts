import type { IPipelineStepHandler, StepOutcome } from '../contracts/pipeline-step-handler.js';
import type { ITextGenerator } from '../contracts/text-generator.js';
import { MimeTypes, ReservedTags, Steps, SYNTHETIC_SUMMARY } from '../models/constants.js';
import { logOnFile, type DataPipeline } from '../models/data-pipeline.js';
import { readIngestionArgs, RequestArgs, type IngestionArgs } from '../validation/km-args.js';
import type { PipelineContext } from '../pipeline/pipeline-context.js';
import { DerivedFileNames } from '../pipeline/internal-file-names.js';
import { generatedFilesOf, readTextFile, writeGeneratedFile } from '../pipeline/pipeline-files.js';
import { chunkText } from '../text-chunker/text-chunker.js';
import { defaultPromptProvider, PromptNames, readPrompt, type PromptProviderContext } from '../search/prompt-provider.js';
import { renderPrompt } from '../search/prompts.js';
import { markProcessed, pendingFiles } from './handler-utils.js';

const ANSWER_TOKENS = 500;
/** Most summarization rounds over one text. */
const MAX_ROUNDS = 8;

/**
 * `summarize`: writes a summary of each file's extracted text (map-reduce over chunks that
 * fit the text generator's context), tagged `__synth:summary`. The next steps embed and
 * store it like a partition. Needs a text generator. The prompt is the request's
 * `custom_summary_prompt_str`, else the `summarize` prompt of the context's prompt provider
 * (see `KernelMemoryBuilder.withPromptProvider`). As in Kernel Memory,
 * `custom_summary_target_token_size_int` (15 to half the generator's `maxTokenTotal`) has the
 * summary summarized again until it is that short (or stops shrinking), and
 * `custom_summary_overlapping_tokens_int` makes the pieces of a long text overlap, after which
 * the joined summaries are summarized once more as a whole.
 */
export class SummarizationHandler implements IPipelineStepHandler {
  readonly stepName: string = Steps.summarize;

  constructor(private readonly context: PipelineContext & PromptProviderContext) {}

  async invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
    const generator = this.context.textGenerator;
    if (!generator) {
      return { result: 'fatal', pipeline, error: 'the summarize step needs a text generator; none is configured' };
    }
    const args = readIngestionArgs(pipeline.args);
    const prompt = args.summaryPrompt ?? readPrompt(this.context.promptProvider ?? defaultPromptProvider, PromptNames.summarize);
    const settings = summarySettings(generator, prompt, args);
    if (typeof settings === 'string') return { result: 'fatal', pipeline, error: settings };
    for (const file of pendingFiles(pipeline, this.stepName)) {
      signal?.throwIfAborted();
      const [extracted] = generatedFilesOf(file, 'extracted_text');
      if (extracted) {
        const text = await readTextFile(this.context, pipeline, extracted.name);
        if (text.trim()) {
          const summary = await summarize(generator, prompt, text, settings, signal);
          await writeGeneratedFile(this.context, pipeline, file, {
            name: DerivedFileNames.summary(file.name),
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

interface SummarySettings {
  /** Most tokens of text summarized in one call. */
  paragraphTokens: number;
  /** Summarize again until the summary has at most this many tokens; none: until it fits one call. */
  targetTokens: number | undefined;
  overlapTokens: number;
}

/** The summary arguments checked against the text generator and the prompt, or why they cannot be used. */
function summarySettings(generator: ITextGenerator, prompt: string, args: IngestionArgs): SummarySettings | string {
  const A = RequestArgs;
  const half = Math.floor(generator.maxTokenTotal / 2);
  const target = args.summaryTargetTokenSize;
  if (target !== undefined && target > half) {
    return `argument "${A.summaryTargetTokenSize}" (${target}) is too large: at most ${half}, half the text generator's maxTokenTotal (${generator.maxTokenTotal})`;
  }
  // The context less the prompt's own words and the answer.
  const promptTokens = generator.tokenizer.countTokens(renderPrompt(prompt, { input: '' }));
  const paragraphTokens = Math.max(256, generator.maxTokenTotal - promptTokens - ANSWER_TOKENS);
  const overlap = args.summaryOverlappingTokens ?? 0;
  if (overlap >= paragraphTokens) {
    return `argument "${A.summaryOverlappingTokens}" (${overlap}) is too large: it must be less than the ${paragraphTokens} tokens of text summarized in one call`;
  }
  return { paragraphTokens, targetTokens: target, overlapTokens: overlap };
}

async function summarize(
  generator: ITextGenerator,
  template: string,
  text: string,
  settings: SummarySettings,
  signal?: AbortSignal,
): Promise<string> {
  const { tokenizer } = generator;
  const { paragraphTokens: room, overlapTokens: overlap } = settings;
  let current = text;
  let length = tokenizer.countTokens(text);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // Overlapping pieces repeat text: their summaries are summarized again as a whole.
    const chunks = length <= room ? [current] : chunkText(current, tokenizer, { maxTokensPerChunk: room, overlapTokens: overlap });
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
    const next = parts.join('\n\n');
    const nextLength = tokenizer.countTokens(next);
    // As KM: a round that does not shrink the text ends the work (the first round over overlapping pieces may).
    const shrinking = nextLength < length || (round === 0 && chunks.length > 1 && overlap > 0);
    current = next;
    if (!shrinking) break;
    length = nextLength;
    const whole = chunks.length === 1;
    if (whole && (settings.targetTokens === undefined || length <= settings.targetTokens)) break;
  }
  return current;
}
