import { silentLogger } from '@km/core';
import { readSettings, settingsFromEnv } from '@km/core/connector';
import { beforeEach, describe, expect, it } from 'vitest';
import { ollamaEmbeddingGeneratorFactory, ollamaTextGeneratorFactory } from '../src/factory.js';
import { OllamaEmbeddingGenerator, OllamaTextGenerator } from '../src/index.js';
import { useFakeOllamaServer } from './fake-ollama-server.js';

const { server, url } = useFakeOllamaServer();
beforeEach(() => server.reset());
const context = { logger: silentLogger };

/** The settings a host reads for one factory from the environment alone. */
function fromEnv(factory: typeof ollamaTextGeneratorFactory | typeof ollamaEmbeddingGeneratorFactory, env: Record<string, string>) {
  return readSettings(factory, { env, section: settingsFromEnv([factory], env), sectionName: 'generator' });
}

describe('ollama factories', () => {
  it('are named ollama and declare their settings with env variables, flags and defaults', () => {
    expect(ollamaTextGeneratorFactory.type).toBe('ollama');
    expect(ollamaEmbeddingGeneratorFactory.type).toBe('ollama');
    const text = Object.fromEntries(ollamaTextGeneratorFactory.settings.map((s) => [s.key, s]));
    expect(text.ollamaUrl).toMatchObject({
      env: ['KM_OLLAMA_URL', 'OLLAMA_HOST'],
      type: 'url',
      flag: '--ollama-url',
      default: 'http://127.0.0.1:11434',
    });
    expect(text.ollamaTextModel).toMatchObject({ env: ['KM_OLLAMA_TEXT_MODEL'], flag: '--ollama-text-model', default: 'llama3.2' });
    expect(text.ollamaContextLength).toMatchObject({ env: ['KM_OLLAMA_CONTEXT_LENGTH'], type: 'number' });
    expect(text.ollamaKeepAlive).toMatchObject({ env: ['KM_OLLAMA_KEEP_ALIVE'] });
    const embedding = Object.fromEntries(ollamaEmbeddingGeneratorFactory.settings.map((s) => [s.key, s]));
    expect(embedding.ollamaEmbeddingModel).toMatchObject({
      env: ['KM_OLLAMA_EMBEDDING_MODEL'],
      flag: '--ollama-embedding-model',
      default: 'nomic-embed-text',
    });
  });

  it('defaults to the local server and the default models', async () => {
    expect(fromEnv(ollamaTextGeneratorFactory, {})).toEqual({ ollamaUrl: 'http://127.0.0.1:11434', ollamaTextModel: 'llama3.2' });
    const text = await ollamaTextGeneratorFactory.create(fromEnv(ollamaTextGeneratorFactory, {}), context);
    expect(text).toBeInstanceOf(OllamaTextGenerator);
    expect(text).toMatchObject({ modelName: 'ollama/llama3.2', maxTokenTotal: 4096 });
    const embedding = await ollamaEmbeddingGeneratorFactory.create(fromEnv(ollamaEmbeddingGeneratorFactory, {}), context);
    expect(embedding).toBeInstanceOf(OllamaEmbeddingGenerator);
    expect(embedding.modelName).toBe('ollama/nomic-embed-text');
  });

  it('builds a text generator that uses the configured server, model, context length and keep-alive', async () => {
    const settings = fromEnv(ollamaTextGeneratorFactory, {
      KM_OLLAMA_URL: url(),
      KM_OLLAMA_TEXT_MODEL: 'qwen2.5:7b',
      KM_OLLAMA_CONTEXT_LENGTH: '16384',
      KM_OLLAMA_KEEP_ALIVE: '1h',
    });
    expect(settings.ollamaContextLength).toBe(16384);
    const g = await ollamaTextGeneratorFactory.create(settings, context);
    expect(g.maxTokenTotal).toBe(16384);
    for await (const _ of g.generate('hi', {})) void _;
    expect(server.requestsTo('chat')[0]!.body).toMatchObject({ model: 'qwen2.5:7b', keep_alive: '1h', options: { num_ctx: 16384 } });
  });

  it('builds an embedding generator from OLLAMA_HOST when KM_OLLAMA_URL is unset', async () => {
    const settings = fromEnv(ollamaEmbeddingGeneratorFactory, { OLLAMA_HOST: url(), KM_OLLAMA_KEEP_ALIVE: '0' });
    const g = await ollamaEmbeddingGeneratorFactory.create(settings, context);
    await g.generateEmbeddings(['alpha']);
    expect(server.requestsTo('embed')[0]!.body).toMatchObject({ model: 'nomic-embed-text', keep_alive: 0 });
  });

  it('KM_OLLAMA_URL wins over OLLAMA_HOST', () => {
    expect(fromEnv(ollamaEmbeddingGeneratorFactory, { KM_OLLAMA_URL: 'http://a:1', OLLAMA_HOST: 'http://b:2' }).ollamaUrl).toBe(
      'http://a:1',
    );
  });

  it('refuses a context length that is not a positive integer and a URL without a scheme', () => {
    expect(() => fromEnv(ollamaTextGeneratorFactory, { KM_OLLAMA_CONTEXT_LENGTH: 'big' })).toThrow(/KM_OLLAMA_CONTEXT_LENGTH/);
    expect(() => fromEnv(ollamaTextGeneratorFactory, { KM_OLLAMA_CONTEXT_LENGTH: '0' })).toThrow(/>= 1/);
    expect(() => fromEnv(ollamaTextGeneratorFactory, { OLLAMA_HOST: '0.0.0.0:11434' })).toThrow(/KM_OLLAMA_URL or OLLAMA_HOST/);
  });
});
