import { silentLogger } from '@km/core';
import { readSettings, settingsFromEnv } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { anthropicTextGeneratorFactory as factory } from '../src/factory.js';
import { AnthropicTextGenerator } from '../src/index.js';
import { useFakeAnthropicServer } from './fake-anthropic-server.js';

const { server, url } = useFakeAnthropicServer();

/** The settings a host reads from this environment, as `KM_TEXT_GENERATOR=anthropic` would. */
function settings(env: Record<string, string>) {
  return readSettings(factory, { env, section: settingsFromEnv([factory], env), sectionName: 'textGenerator' });
}

describe('anthropicTextGeneratorFactory', () => {
  it('is named anthropic', () => {
    expect(factory.type).toBe('anthropic');
  });

  it('a missing API key is a clear invalid_argument error naming both variables', () => {
    let error: unknown;
    try {
      settings({});
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'invalid_argument' });
    expect(String((error as Error).message)).toMatch(/anthropic.*anthropicApiKey.*KM_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY.*not set/);
  });

  it('reads the key from either variable, the model with its default, and checks the base URL and context window', () => {
    expect(settings({ ANTHROPIC_API_KEY: 'a' })).toEqual({ anthropicApiKey: 'a', anthropicModel: 'claude-sonnet-4-6' });
    expect(settings({ KM_ANTHROPIC_API_KEY: 'km', ANTHROPIC_API_KEY: 'a', KM_ANTHROPIC_MODEL: 'claude-haiku-4-5' })).toMatchObject({
      anthropicApiKey: 'km',
      anthropicModel: 'claude-haiku-4-5',
    });
    expect(() => settings({ ANTHROPIC_API_KEY: 'a', KM_ANTHROPIC_BASE_URL: 'not a url' })).toThrow(
      /anthropicBaseUrl.*KM_ANTHROPIC_BASE_URL/,
    );
    expect(() => settings({ ANTHROPIC_API_KEY: 'a', KM_ANTHROPIC_MAX_TOKEN_TOTAL: 'lots' })).toThrow(/anthropicMaxTokenTotal.*integer/);
    expect(factory.settings.find((s) => s.key === 'anthropicModel')?.flag).toBe('--anthropic-model');
  });

  it('creates a generator that talks to the configured endpoint', async () => {
    const s = settings({
      KM_ANTHROPIC_API_KEY: server.apiKey,
      KM_ANTHROPIC_MODEL: 'claude-haiku-4-5',
      KM_ANTHROPIC_BASE_URL: url(),
      KM_ANTHROPIC_MAX_TOKEN_TOTAL: '150000',
    });
    const generator = await factory.create(s, { logger: silentLogger });
    expect(generator).toBeInstanceOf(AnthropicTextGenerator);
    expect(generator.maxTokenTotal).toBe(150_000);
    expect(generator.modelName).toBe('anthropic/claude-haiku-4-5');
    const pieces: string[] = [];
    for await (const piece of generator.generate('hi', { maxTokens: 10 })) pieces.push(piece);
    expect(pieces.join('')).toBe(server.answer);
    expect(server.requests.at(-1)?.body.model).toBe('claude-haiku-4-5');
  });
});
