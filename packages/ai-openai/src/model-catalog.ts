/** What km knows of an OpenAI embedding model. */
export interface EmbeddingModelInfo {
  maxTokens: number;
  dimensions: number;
  /** Accepts the `dimensions` request parameter (shortened embeddings). */
  supportsDimensions: boolean;
}

/** What km knows of an OpenAI chat model. */
export interface ChatModelInfo {
  /** Context window: prompt plus answer. */
  contextWindow: number;
  /** Takes `max_completion_tokens` and no sampling parameters (reasoning models). */
  reasoning: boolean;
}

const EMBEDDING_MODELS: Record<string, EmbeddingModelInfo> = {
  'text-embedding-3-small': { maxTokens: 8191, dimensions: 1536, supportsDimensions: true },
  'text-embedding-3-large': { maxTokens: 8191, dimensions: 3072, supportsDimensions: true },
  'text-embedding-ada-002': { maxTokens: 8191, dimensions: 1536, supportsDimensions: false },
};

const CHAT_MODELS: Array<[RegExp, ChatModelInfo]> = [
  [/^gpt-5/, { contextWindow: 400_000, reasoning: true }],
  [/^gpt-4\.1/, { contextWindow: 1_047_576, reasoning: false }],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4\.5)/, { contextWindow: 128_000, reasoning: false }],
  [/^o[134]/, { contextWindow: 200_000, reasoning: true }],
  [/^gpt-4-32k/, { contextWindow: 32_768, reasoning: false }],
  [/^gpt-4/, { contextWindow: 8_192, reasoning: false }],
  [/^gpt-3\.5-turbo/, { contextWindow: 16_385, reasoning: false }],
];

/** Limits of a known OpenAI embedding model, by name; undefined for other models. */
export function embeddingModelInfo(model: string): EmbeddingModelInfo | undefined {
  return EMBEDDING_MODELS[model];
}

/** Limits of a known OpenAI chat model, by name prefix; undefined for other models. */
export function chatModelInfo(model: string): ChatModelInfo | undefined {
  return CHAT_MODELS.find(([pattern]) => pattern.test(model))?.[1];
}

/** OpenAI's documented per-request limits of the embeddings endpoint. */
export const EMBEDDINGS_REQUEST_LIMITS = { maxInputs: 2048, maxTokens: 300_000 } as const;
