import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../src/index.js';

describe('loadConfig', () => {
  it('uses the embedded defaults when nothing is set', () => {
    expect(loadConfig({ env: {} })).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).toMatchObject({ host: '127.0.0.1', port: 9001, embeddings: { provider: 'local' }, queue: { type: 'file' }, auth: { enabled: false } });
  });

  it('layers a JSON file, then environment variables, then overrides', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'km-cfg-')), 'km.json');
    writeFileSync(file, JSON.stringify({ port: 9100, dataDirectory: '/srv/km', queue: { concurrency: 4 } }));
    const config = loadConfig({ env: { KM_CONFIG: file, KM_PORT: '9200', KM_QUEUE_CONCURRENCY: '8' }, overrides: { host: '0.0.0.0' } });
    expect(config).toMatchObject({ port: 9200, dataDirectory: '/srv/km', host: '0.0.0.0', queue: { concurrency: 8, type: 'file', maxAttempts: 5 } });
  });

  it('switches embeddings to OpenAI when a key or a compatible endpoint is set, and turns auth on with a key', () => {
    const key = 'x'.repeat(32);
    expect(loadConfig({ env: { OPENAI_API_KEY: 'sk-test' } }).embeddings.provider).toBe('openai');
    expect(loadConfig({ env: { KM_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', KM_EMBEDDINGS: 'local' } }).embeddings.provider).toBe('local');
    expect(loadConfig({ env: { KM_ACCESS_KEY1: key } }).auth).toEqual({ enabled: true, header: 'Authorization', keys: [key] });
  });

  it.each([
    [{ KM_PORT: 'abc' }, /KM_PORT must be a number/],
    [{ KM_PORT: '70000' }, /port must be 0-65535/],
    [{ KM_ACCESS_KEY1: 'short' }, /at least 32 characters/],
    [{ KM_AUTH_ENABLED: 'true' }, /no access key/],
    [{ KM_QUEUE: 'kafka' }, /queue.type/],
    [{ KM_QUEUE: 'memory', KM_RUN_HANDLERS: 'false' }, /no other process/],
    [{ KM_EMBEDDINGS: 'openai' }, /neither openai.apiKey/],
    [{ KM_RUN_HANDLERS: 'maybe' }, /true or false/],
    [{ KM_CONFIG: '/no/such/km.json' }, /cannot read the configuration file/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });
});
