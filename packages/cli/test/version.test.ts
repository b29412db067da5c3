import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CLI_VERSION } from '../src/index.js';
import { kmProcess as km } from './helpers.js';

const packageVersion = async () =>
  (JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('km --version', () => {
  it('prints the version of the CLI package and exits 0', async () => {
    const version = await packageVersion();
    expect(CLI_VERSION).toBe(version);
    for (const flag of ['--version', '-v']) {
      const { stdout, stderr, code } = await km([flag]);
      expect(code).toBe(0);
      expect(stdout).toBe(`${version}\n`);
      expect(stderr).toBe('');
    }
  });
});
