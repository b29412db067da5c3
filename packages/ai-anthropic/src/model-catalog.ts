/** What km knows of a Claude model. */
export interface ClaudeModelInfo {
  /** Context window: prompt plus answer, in tokens; undefined when km does not know it. */
  contextWindow?: number;
  /**
   * Accepts `temperature` and `top_p`. Anthropic deprecated both for models released after
   * Claude Opus 4.6, which answer 400 "`temperature` is deprecated for this model".
   */
  sampling: boolean;
}

/** The model used when none is given: a current Sonnet. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** Context window assumed for a model whose window km does not know. */
export const UNKNOWN_MODEL_CONTEXT_WINDOW = 200_000;

// First match wins. Claude 3, 3.5, 3.7 and 4 up to 4.6: 200k tokens (larger windows some offer
// in beta need opting in, so they are not assumed), temperature and top_p accepted. Opus 4.7,
// 4.8 and the 5 family: sampling parameters refused; their windows are not recorded here.
const MODELS: Array<[RegExp, ClaudeModelInfo]> = [
  [/^claude-(opus|sonnet|haiku)-4-[7-9](-|$)/, { sampling: false }],
  [/^claude-[a-z]+-[5-9](-|$)/, { sampling: false }],
  [/^claude-(opus|sonnet|haiku)-4(-[0-6])?(-|$)/, { contextWindow: 200_000, sampling: true }],
  [/^claude-(3-5|3-7)-(opus|sonnet|haiku)(-|$)/, { contextWindow: 200_000, sampling: true }],
  [/^claude-3-(opus|sonnet|haiku)(-|$)/, { contextWindow: 200_000, sampling: true }],
];

/** What km knows of a Claude model, by id (aliases and dated snapshots alike); undefined for others. */
export function claudeModelInfo(model: string): ClaudeModelInfo | undefined {
  return MODELS.find(([pattern]) => pattern.test(model))?.[1];
}
