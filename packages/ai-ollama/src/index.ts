export { OllamaEmbeddingGenerator, DEFAULT_EMBEDDING_CONTEXT, type OllamaEmbeddingGeneratorOptions } from './ollama-embedding-generator.js';
export { OllamaTextGenerator, DEFAULT_CONTEXT_LENGTH, type OllamaTextGeneratorOptions } from './ollama-text-generator.js';
export { DEFAULT_OLLAMA_HOST, keepAliveValue, type OllamaEndpointOptions } from './ollama-endpoint.js';
export { OllamaRequestError, toKmError, isRetryableStatus } from './errors.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
