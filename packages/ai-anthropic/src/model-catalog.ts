/** What km knows of a Claude model. */
export interface ClaudeModelInfo {
  /** Context window: prompt plus answer, in tokens. */
  contextWindow: number;
}

/** The model used when none is given: a current Sonnet. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** Context window assumed for a model km does not know. */
export const UNKNOWN_MODEL_CONTEXT_WINDOW = 200_000;

// Claude 3, 3.5, 3.7 and the 4 family: 200k tokens (Anthropic's models overview). Larger windows
// some models offer in beta (1M) need opting in, so they are not assumed.
const MODELS: Array<[RegExp, ClaudeModelInfo]> = [
  [/^claude-(opus|sonnet|haiku)-4(-|$)/, { contextWindow: 200_000 }],
  [/^claude-(3-5|3-7)-(opus|sonnet|haiku)(-|$)/, { contextWindow: 200_000 }],
  [/^claude-3-(opus|sonnet|haiku)(-|$)/, { contextWindow: 200_000 }],
];

/** Limits of a known Claude model, by id (aliases and dated snapshots alike); undefined for others. */
export function claudeModelInfo(model: string): ClaudeModelInfo | undefined {
  return MODELS.find(([pattern]) => pattern.test(model))?.[1];
}
