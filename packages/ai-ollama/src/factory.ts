// @km/ai-ollama/factory: how hosts build this package's generators from configuration; loads neither
// the generators nor the ollama client until one is created.
import type { ConnectorSetting, EmbeddingGeneratorFactory, TextGeneratorFactory } from '@km/core/connector';

const host: ConnectorSetting = {
  key: 'ollamaUrl',
  env: ['KM_OLLAMA_URL', 'OLLAMA_HOST'],
  type: 'url',
  default: 'http://127.0.0.1:11434',
  flag: '--ollama-url',
  description: 'the Ollama server, e.g. http://127.0.0.1:11434',
};

const keepAlive: ConnectorSetting = {
  key: 'ollamaKeepAlive',
  env: ['KM_OLLAMA_KEEP_ALIVE'],
  description: "how long Ollama keeps the model loaded after a request, e.g. '5m', '1h', 0 or -1 (the server's default when unset)",
};

/** The text value of a setting, or undefined. */
const text = (value: string | number | undefined) => (value === undefined ? undefined : String(value));

/**
 * How the service and `km worker` build an {@link OllamaTextGenerator} from configuration
 * (`KM_TEXT_GENERATOR=ollama`).
 */
export const ollamaTextGeneratorFactory: TextGeneratorFactory = {
  type: 'ollama',
  description: "Ollama's native chat API (the ollama client)",
  settings: [
    host,
    {
      key: 'ollamaTextModel',
      env: ['KM_OLLAMA_TEXT_MODEL'],
      default: 'llama3.2',
      flag: '--ollama-text-model',
      description: 'the chat model, pulled on the server (ollama pull llama3.2)',
    },
    {
      key: 'ollamaContextLength',
      env: ['KM_OLLAMA_CONTEXT_LENGTH'],
      type: 'number',
      min: 1,
      description: 'context window of the chat model in tokens, sent as num_ctx (default 4096)',
    },
    keepAlive,
  ],
  async create(settings, { logger }) {
    const { OllamaTextGenerator } = await import('./ollama-text-generator.js');
    return new OllamaTextGenerator({
      host: text(settings.ollamaUrl),
      model: text(settings.ollamaTextModel) ?? 'llama3.2',
      ...(typeof settings.ollamaContextLength === 'number' ? { contextLength: settings.ollamaContextLength } : {}),
      keepAlive: text(settings.ollamaKeepAlive),
      logger,
    });
  },
};

/**
 * How the service and `km worker` build an {@link OllamaEmbeddingGenerator} from configuration
 * (`KM_EMBEDDING_GENERATOR=ollama`).
 */
export const ollamaEmbeddingGeneratorFactory: EmbeddingGeneratorFactory = {
  type: 'ollama',
  description: "Ollama's native embed API (the ollama client)",
  settings: [
    host,
    {
      key: 'ollamaEmbeddingModel',
      env: ['KM_OLLAMA_EMBEDDING_MODEL'],
      default: 'nomic-embed-text',
      flag: '--ollama-embedding-model',
      description: 'the embedding model, pulled on the server (ollama pull nomic-embed-text)',
    },
    keepAlive,
  ],
  async create(settings, { logger }) {
    const { OllamaEmbeddingGenerator } = await import('./ollama-embedding-generator.js');
    return new OllamaEmbeddingGenerator({
      host: text(settings.ollamaUrl),
      model: text(settings.ollamaEmbeddingModel) ?? 'nomic-embed-text',
      keepAlive: text(settings.ollamaKeepAlive),
      logger,
    });
  },
};
