export { OpenAIEmbeddingGenerator, type OpenAIEmbeddingGeneratorOptions } from './openai-embedding-generator.js';
export { OpenAITextGenerator, type OpenAITextGeneratorOptions } from './openai-text-generator.js';
export {
  createOpenAIClient,
  DEFAULT_AZURE_API_VERSION,
  type AzureOpenAIConnection,
  type CompatibleConnection,
  type OpenAIApiConnection,
  type OpenAIConnectionOptions,
} from './connection.js';
export { OpenAIRequestError, toKmError, isRetryableStatus } from './errors.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
export type { OpenAIEndpointOptions } from './openai-model-api.js';
export { O200KTokenizer, tokenizerForModel } from './tokenizers.js';
export {
  chatModelInfo,
  embeddingModelInfo,
  EMBEDDINGS_REQUEST_LIMITS,
  type ChatModelInfo,
  type EmbeddingModelInfo,
} from './model-catalog.js';
