import type { TokenUsage } from '../models/search-models.js';
import type { ITextTokenizer } from './text-tokenizer.js';

/** Options of one generation. */
export interface TextGenerationOptions {
  /** @default 0 */
  temperature?: number;
  /** @default 0 */
  nucleusSampling?: number;
  /** Most tokens to generate. @default 300 */
  maxTokens?: number;
  stopSequences?: string[];
  /**
   * The model to use for this call instead of the generator's own (KM's
   * `custom_text_generation_model_name`). Only set when the generator declares
   * `supportsModelOverride`; km refuses the request otherwise.
   */
  modelName?: string;
  signal?: AbortSignal;
  /** Called once with the usage the service reported, when it reports one. */
  onUsage?: (usage: TokenUsage) => void;
}

/** Generates text from a prompt, streaming the answer. */
export interface ITextGenerator {
  /** Context window: prompt plus answer, in tokens. */
  readonly maxTokenTotal: number;
  readonly modelName?: string;
  /**
   * True when {@link TextGenerationOptions.modelName} switches the model of one call (e.g. a
   * server hosting several models). Without it, a request naming another model is refused
   * with `invalid_argument`. @default false
   */
  readonly supportsModelOverride?: boolean;
  readonly tokenizer: ITextTokenizer;
  generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string>;
}
