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
  signal?: AbortSignal;
  /** Called once with the usage the service reported, when it reports one. */
  onUsage?: (usage: TokenUsage) => void;
}

/** Generates text from a prompt, streaming the answer. */
export interface ITextGenerator {
  /** Context window: prompt plus answer, in tokens. */
  readonly maxTokenTotal: number;
  readonly modelName?: string;
  readonly tokenizer: ITextTokenizer;
  generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string>;
}
