export { AnthropicTextGenerator, type AnthropicTextGeneratorOptions } from './anthropic-text-generator.js';
export { ClaudeTokenEstimator, CLAUDE_TOKEN_FACTOR } from './claude-tokenizer.js';
export { AnthropicRequestError, isRetryableStatus, toKmError, type ErrorContext } from './errors.js';
export { claudeModelInfo, DEFAULT_MODEL, UNKNOWN_MODEL_CONTEXT_WINDOW, type ClaudeModelInfo } from './model-catalog.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
export { MessageStream } from './message-stream.js';
