import type { OpenAIConnectionOptions } from './connection.js';

/** Prefix of `modelName` (stored with each vector) per provider. */
export function modelNamePrefix(connection: OpenAIConnectionOptions): string {
  return connection.provider === 'azure' ? 'azure-openai' : connection.provider === 'compatible' ? 'openai-compatible' : 'openai';
}

/** `serviceType` reported in token usage, as Kernel Memory names it. */
export function serviceType(connection: OpenAIConnectionOptions): string {
  return connection.provider === 'azure' ? 'Azure OpenAI' : connection.provider === 'compatible' ? 'OpenAI-compatible' : 'OpenAI';
}
