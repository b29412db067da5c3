import { KmError } from '../errors/km-error.js';
import { ANSWER_PROMPT, SUMMARY_PROMPT } from './prompts.js';

/** Names of the prompts km reads from a {@link IPromptProvider} (KM's names). */
export const PromptNames = {
  /** The answer prompt of `ask`: `{{$facts}}`, `{{$input}}` (the question), `{{$notFound}}`. */
  answerWithFacts: 'answer-with-facts',
  /** The prompt of the `summarize` step: `{{$input}}` (the text). */
  summarize: 'summarize',
} as const;

/**
 * Supplies prompts by name, as KM's `IPromptProvider` does, so the answer and summary prompts
 * can be replaced without replacing the code that uses them.
 *
 * ```ts
 * const memory = new KernelMemoryBuilder()
 *   .withPromptProvider({ readPrompt: (name) => name === 'summarize' ? MY_SUMMARY : defaultPromptProvider.readPrompt(name) })
 *   .build();
 * ```
 */
export interface IPromptProvider {
  /** The prompt template called `name`; throws when it has none. */
  readPrompt(name: string): string;
}

const DEFAULT_PROMPTS: Readonly<Record<string, string>> = {
  [PromptNames.answerWithFacts]: ANSWER_PROMPT,
  [PromptNames.summarize]: SUMMARY_PROMPT,
};

/** km's built-in prompts. */
export const defaultPromptProvider: IPromptProvider = {
  readPrompt(name: string): string {
    const prompt = Object.hasOwn(DEFAULT_PROMPTS, name) ? DEFAULT_PROMPTS[name] : undefined;
    if (prompt === undefined) throw new KmError('not_configured', `no prompt named "${name}"`);
    return prompt;
  },
};

/**
 * Reads a prompt from a provider, checking it is a non-empty string.
 * @throws KmError `not_configured` when the provider returns something else.
 */
export function readPrompt(provider: IPromptProvider, name: string): string {
  const prompt: unknown = provider.readPrompt(name);
  if (typeof prompt !== 'string' || prompt.trim() === '') {
    throw new KmError('not_configured', `the prompt provider returned no prompt for "${name}"`);
  }
  return prompt;
}

/**
 * The part of the pipeline context that carries the prompt provider; the builder adds it to
 * the context it gives handlers.
 */
export interface PromptProviderContext {
  readonly promptProvider?: IPromptProvider | undefined;
}
