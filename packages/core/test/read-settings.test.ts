import { describe, expect, it } from 'vitest';
import { readSettings, settingsFromEnv, type MemoryDbFactory } from '../src/connector.js';

const factory: MemoryDbFactory = {
  type: 'demo',
  description: 'a demo connector',
  settings: [
    { key: 'demoUrl', env: ['KM_DEMO_URL', 'DEMO_URL'], type: 'url', required: true, description: 'where it lives' },
    { key: 'demoPool', env: ['KM_DEMO_POOL'], type: 'number', min: 1, default: 4, description: 'connections' },
    { key: 'demoUser', env: ['KM_DEMO_USER'], with: ['demoPassword'], description: 'user' },
    { key: 'demoPassword', env: ['KM_DEMO_PASSWORD'], description: 'password' },
  ],
  create: () => Promise.reject(new Error('not built in this test')),
};
const read = (section: Record<string, unknown>) => readSettings(factory, { env: {}, section, sectionName: 'memoryDb' });

describe('connector settings', () => {
  it('are read from the environment (first variable set wins) into a configuration section', () => {
    expect(settingsFromEnv([factory], { DEMO_URL: 'http://b', KM_DEMO_POOL: '2', OTHER: 'x' })).toEqual({
      demoUrl: 'http://b',
      demoPool: '2',
    });
    expect(settingsFromEnv([factory], { KM_DEMO_URL: 'http://a', DEMO_URL: 'http://b' })).toEqual({ demoUrl: 'http://a' });
  });

  it('are checked: numbers parsed, defaults applied, URLs of the allowed schemes', () => {
    expect(read({ demoUrl: 'https://x', demoPool: '8' })).toEqual({ demoUrl: 'https://x', demoPool: 8 });
    expect(read({ demoUrl: 'https://x' })).toEqual({ demoUrl: 'https://x', demoPool: 4 });
  });

  it.each([
    [{}, /memoryDb.type is demo but memoryDb.demoUrl \(KM_DEMO_URL or DEMO_URL\) is not set/],
    [{ demoUrl: 'ftp://x' }, /memoryDb.demoUrl \(KM_DEMO_URL or DEMO_URL\) is not an http:\/\/ or https:\/\/ URL/],
    [{ demoUrl: 'not a url' }, /is not an http/],
    [{ demoUrl: 'http://x', demoPool: '0' }, /memoryDb.demoPool \(KM_DEMO_POOL\) must be an integer >= 1, got "0"/],
    [{ demoUrl: 'http://x', demoPool: 'many' }, /must be an integer/],
    [{ demoUrl: 'http://x', demoUser: 'me' }, /memoryDb.demoUser and memoryDb.demoPassword go together \(KM_DEMO_USER, KM_DEMO_PASSWORD\)/],
  ])('refuses %j naming the setting and its variable', (section, message) => {
    expect(() => read(section)).toThrow(message);
  });
});
