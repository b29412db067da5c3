import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kmProcess as km } from './helpers.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const CORE = pathToFileURL(fileURLToPath(new URL('../../core/dist/index.js', import.meta.url))).href;

/** A plugin with an in-memory memory DB whose `--demo-label` is written to $KM_DEMO_OUT when it is built. */
const PLUGIN = `
import { writeFileSync } from 'node:fs';
import { SimpleVectorDb } from ${JSON.stringify(CORE)};
export const kmPlugin = {
  memoryDbs: [{
    type: 'demo-mem',
    description: 'records in process memory (a test plugin)',
    settings: [{ key: 'demoLabel', env: ['KM_DEMO_LABEL'], flag: '--demo-label', required: true, description: 'a label' }],
    create: async (settings) => {
      if (process.env.KM_DEMO_OUT) writeFileSync(process.env.KM_DEMO_OUT, String(settings.demoLabel));
      return new SimpleVectorDb();
    },
  }],
};
`;

const ENV = { ...process.env, KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '' };
let dir: string;
let plugin: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-plugins-'));
  plugin = join(dir, 'demo-plugin.mjs');
  await writeFile(plugin, PLUGIN);
  await writeFile(join(dir, 'postgres-plugin.mjs'), PLUGIN.replace("'demo-mem'", "'postgres'"));
  await writeFile(join(dir, 'km.json'), JSON.stringify({ plugins: [plugin] }));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('km serve --plugin', () => {
  it("lists a plugin's memory DB type and its flag in --help", async () => {
    const { stdout, code } = await km(['serve', '--plugin', plugin, '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--plugin <package or path>/);
    expect(stdout).toMatch(/--memory-db <type>[\s\S]*demo-mem/);
    expect(stdout.replace(/\s+/g, ' ')).toMatch(/--demo-label <value> a label, for --memory-db demo-mem \(default: \$KM_DEMO_LABEL\)/);
  });

  it('loads the plugins of KM_PLUGINS and of the configuration file too', async () => {
    expect((await km(['worker', '--help'], { ...ENV, KM_PLUGINS: plugin })).stdout).toMatch(/--demo-label <value>/);
    expect((await km(['serve', '--config', join(dir, 'km.json'), '--help'])).stdout).toMatch(/--demo-label <value>/);
  });

  it('serves with the plugin memory DB: its flag reaches the factory, upload and search work', async () => {
    const out = join(dir, 'label.txt');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--plugin',
        plugin,
        '--memory-db',
        'demo-mem',
        '--demo-label',
        'from-flag',
        '--port',
        '0',
        '--data-dir',
        join(dir, 'data'),
      ],
      { env: { ...ENV, KM_DEMO_OUT: out }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(text);
          if (match) resolve(match[1]!);
        });
        child.stderr.on('data', (chunk: Buffer) => reject(new Error(chunk.toString())));
        child.on('exit', (code) => reject(new Error(`km serve exited with ${code}`)));
      });
      expect(await readFile(out, 'utf8')).toBe('from-flag');
      const form = new FormData();
      form.append('index', 'plugins');
      form.append('documentId', 'doc1');
      form.append('file1', new Blob(['the lighthouse keeper counts gulls every morning'], { type: 'text/plain' }), 'doc1.txt');
      expect((await fetch(`${url}/upload`, { method: 'POST', body: form })).status).toBe(202);
      for (let i = 0; i < 200; i++) {
        const status = await fetch(`${url}/upload-status?index=plugins&documentId=doc1`);
        if (status.ok && ((await status.json()) as { completed: boolean }).completed) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const search = await fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ index: 'plugins', query: 'lighthouse gulls', minRelevance: 0 }),
      });
      expect(JSON.stringify(await search.json())).toContain('lighthouse keeper');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it.each([
    [
      'a plugin that is not there',
      ['--plugin', './no-such-plugin.mjs'],
      /^km: plugin "\.\/no-such-plugin\.mjs" not found: no file or folder /,
    ],
    [
      'a package that is not installed',
      ['--plugin', 'km-no-such-plugin'],
      /^km: plugin "km-no-such-plugin" not found: no package "km-no-such-plugin" in /,
    ],
    [
      'a type of a built-in connector',
      ['--plugin', 'POSTGRES'],
      /its memoryDbs factory type "postgres" is already taken by km \(built in\)/,
    ],
  ])('stops with exit code 2 on %s', async (_name, args, message) => {
    const resolved = args.map((arg) => (arg === 'POSTGRES' ? join(dir, 'postgres-plugin.mjs') : arg));
    const { stderr, code } = await km(['serve', ...resolved, '--port', '0', '--data-dir', join(dir, 'data-err')]);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });
});
