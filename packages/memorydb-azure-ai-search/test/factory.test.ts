import { readSettings, settingsFromEnv } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { azureAiSearchMemoryDbFactory } from '../src/factory.js';
import { AzureAiSearchMemoryDb } from '../src/index.js';

const env = {
  KM_AZURE_SEARCH_ENDPOINT: 'https://my-search.search.windows.net',
  KM_AZURE_SEARCH_API_KEY: 'key',
  KM_MEMORY_DB_PREFIX: 'team-',
};
const read = (values: Record<string, string>) =>
  readSettings(azureAiSearchMemoryDbFactory, {
    env: values,
    section: settingsFromEnv([azureAiSearchMemoryDbFactory], values),
    sectionName: 'memoryDb',
  });

describe('azureAiSearchMemoryDbFactory', () => {
  it('is KM_MEMORY_DB=azureaisearch, reading the endpoint, the API key and the prefix from the environment', async () => {
    expect(azureAiSearchMemoryDbFactory.type).toBe('azureaisearch');
    const settings = read(env);
    expect(settings).toEqual({ azureSearchEndpoint: env.KM_AZURE_SEARCH_ENDPOINT, azureSearchApiKey: 'key', prefix: 'team-' });
    const db = await azureAiSearchMemoryDbFactory.create(settings, { logger: console as never });
    expect(db).toBeInstanceOf(AzureAiSearchMemoryDb);
    expect((db as AzureAiSearchMemoryDb).indexName('Notes')).toBe('team-notes');
    expect(azureAiSearchMemoryDbFactory.settings.find((s) => s.key === 'azureSearchEndpoint')?.flag).toBe('--azure-search-endpoint');
  });

  it('refuses a configuration without the endpoint or the key, naming the variable', () => {
    expect(() => read({ ...env, KM_AZURE_SEARCH_ENDPOINT: '' })).toThrow(/KM_AZURE_SEARCH_ENDPOINT/);
    expect(() => read({ ...env, KM_AZURE_SEARCH_API_KEY: '' })).toThrow(/KM_AZURE_SEARCH_API_KEY/);
    expect(() => read({ ...env, KM_AZURE_SEARCH_ENDPOINT: 'ftp://x' })).toThrow(/KM_AZURE_SEARCH_ENDPOINT/);
  });
});
