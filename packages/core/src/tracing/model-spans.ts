import type { Attributes } from '@opentelemetry/api';
import type { TokenUsage } from '../models/search-models.js';
import { GenAiAttributes, KmAttributes } from './span-attributes.js';

/** Attributes of a `km.embeddings` span: one call of an embedding generator. */
export function embeddingAttributes(modelName: string | undefined, purpose: 'query' | 'document', texts: number): Attributes {
  return {
    [GenAiAttributes.operationName]: 'embeddings',
    ...(modelName ? { [GenAiAttributes.requestModel]: modelName } : {}),
    [KmAttributes.embeddingPurpose]: purpose,
    [KmAttributes.embeddingTexts]: texts,
  };
}

/** Attributes of a `km.text_generation` span, before the model answers. */
export function generationAttributes(
  modelName: string | undefined,
  maxTokens: number | undefined,
  temperature: number | undefined,
): Attributes {
  return {
    [GenAiAttributes.operationName]: 'text_completion',
    ...(modelName ? { [GenAiAttributes.requestModel]: modelName } : {}),
    ...(maxTokens !== undefined ? { [GenAiAttributes.requestMaxTokens]: maxTokens } : {}),
    ...(temperature !== undefined ? { [GenAiAttributes.requestTemperature]: temperature } : {}),
  };
}

/** Token counts as attributes (`km.tokens.*` and `gen_ai.usage.*`), each only when known. */
export function tokenAttributes(input: number | undefined, output?: number): Attributes {
  return {
    ...(input !== undefined ? { [KmAttributes.tokensInput]: input, [GenAiAttributes.inputTokens]: input } : {}),
    ...(output !== undefined ? { [KmAttributes.tokensOutput]: output, [GenAiAttributes.outputTokens]: output } : {}),
  };
}

/** The token counts of a usage: the service's when it reported them, else the tokenizer's. */
export function usageTokenAttributes(usage: TokenUsage): Attributes {
  return tokenAttributes(usage.serviceTokensIn ?? usage.tokenizerTokensIn, usage.serviceTokensOut ?? usage.tokenizerTokensOut);
}
