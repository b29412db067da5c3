import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig, loadPlugins, pluginNames } from '../src/index.js';
import { startTestService, uploadForm, waitForCompletion } from './helpers.js';

/** Core's built module, which a plugin written in the temporary folder imports by URL. */
const CORE = pathToFileURL(fileURLToPath(new URL('../../core/dist/index.js', import.meta.url))).href;

/** An ESM plugin with an in-memory memory DB (core's SimpleVectorDb without a folder) and one setting. */
const memoryPlugin = (type: string) => `
import { SimpleVectorDb } from ${JSON.stringify(CORE)};
export const kmPlugin = {
  memoryDbs: [{
    type: ${JSON.stringify(type)},
    description: 'records in process memory (a test plugin)',
    settings: [{ key: 'demoLabel', env: ['KM_DEMO_LABEL'], flag: '--demo-label', required: true, description: 'a label' }],
    create: async (settings) => {
      globalThis.__kmDemoPlugin = { created: settings.demoLabel };
      return new SimpleVectorDb();
    },
  }],
};
`;

/** Uploads `text` as one document, waits until it is ready, then returns the text of what a search for `query` finds. */
export async function searchFor(url: string, text: string, query: string): Promise<string> {
  const res = await fetch(`${url}/upload`, {
    method: 'POST',
    body: uploadForm({ index: 'plugins', documentId: 'doc1' }, [{ name: 'doc1.txt', content: text, type: 'text/plain' }]),
  });
  expect(res.status).toBe(202);
  await waitForCompletion(url, 'doc1', 'plugins');
  const search = await fetch(`${url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ index: 'plugins', query, minRelevance: 0 }),
  });
  expect(search.status).toBe(200);
  const body = (await search.json()) as { results: Array<{ partitions: Array<{ text: string }> }> };
  return body.results.flatMap((r) => r.partitions.map((p) => p.text)).join('\n');
}

let dir: string;
const write = async (name: string, text: string) => {
  const path = join(dir, name);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  return path;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-plugins-'));
  await write('demo-plugin.mjs', memoryPlugin('demo-mem'));
  await write('other-plugin.mjs', memoryPlugin('demo-mem'));
  await write('postgres-plugin.mjs', memoryPlugin('postgres'));
  await write('simple-plugin.mjs', memoryPlugin('simple'));
  await write('no-export.mjs', 'export const somethingElse = 1;\n');
  await write('throws.mjs', "throw new Error('boom at load');\n");
  await write('no-create.mjs', "export const kmPlugin = { queues: [{ type: 'q', description: 'd', settings: [] }] };\n");
  await write('no-type.mjs', 'export const kmPlugin = { memoryDbs: [{ description: "d", settings: [], create: async () => ({}) }] };\n');
  // A package installed in the user's project: node_modules/km-plugin-demo, with an "exports" map.
  await write(
    'project/node_modules/km-plugin-demo/package.json',
    JSON.stringify({ name: 'km-plugin-demo', type: 'module', exports: { '.': { import: './dist/index.js' } } }),
  );
  await write('project/node_modules/km-plugin-demo/dist/index.js', memoryPlugin('demo-pkg'));
  await mkdir(join(dir, 'project/src'), { recursive: true });
  await symlink(join(dir, 'demo-plugin.mjs'), join(dir, 'project/src/linked.mjs'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

describe('km serve with a plugin', () => {
  it('uses a memory DB from a plugin file: its setting is read from the environment, upload and search work through it', async () => {
    vi.stubEnv('KM_DEMO_LABEL', 'from-env');
    const service = await startTestService({ plugins: [join(dir, 'demo-plugin.mjs')], memoryDb: { type: 'demo-mem' } });
    try {
      expect(service.config.plugins).toEqual([join(dir, 'demo-plugin.mjs')]);
      expect((globalThis as { __kmDemoPlugin?: unknown }).__kmDemoPlugin).toEqual({ created: 'from-env' });
      expect(service.memory.orchestrator.context.memoryDbs.map((db) => db.constructor.name)).toEqual(['SimpleVectorDb']);
      const found = await searchFor(service.url, 'the lighthouse keeper counts gulls every morning', 'lighthouse gulls');
      expect(found).toContain('lighthouse keeper');
    } finally {
      await service.dispose();
      vi.unstubAllEnvs();
    }
  });

  it('refuses a plugin memory DB whose required setting is missing, naming it', async () => {
    await expect(startTestService({ plugins: [join(dir, 'demo-plugin.mjs')], memoryDb: { type: 'demo-mem' } })).rejects.toThrow(
      /memoryDb.type is demo-mem but memoryDb.demoLabel \(KM_DEMO_LABEL\) is not set/,
    );
  });

  it('without the plugin, its type is unknown (the test fails without plugin loading)', () => {
    expect(() => loadConfig({ env: {}, overrides: { memoryDb: { type: 'demo-mem' } } })).toThrow(/KM_MEMORY_DB\) must be one of/);
  });
});

describe('loadPlugins', () => {
  const cwd = () => join(dir, 'project');

  it('finds a package installed in the project by name, and a path relative to the working directory', async () => {
    const connectors = await loadPlugins(['km-plugin-demo', './src/linked.mjs'], { cwd: cwd() });
    expect(connectors.memoryDbs.map((f) => f.type)).toEqual(expect.arrayContaining(['postgres', 'demo-pkg', 'demo-mem']));
    const config = loadConfig({ env: { KM_MEMORY_DB: 'demo-pkg', KM_DEMO_LABEL: 'x' }, connectors });
    expect(config.memoryDb).toMatchObject({ type: 'demo-pkg', demoLabel: 'x' });
  });

  it('adds up the file, KM_PLUGINS and the flags, each once', () => {
    expect(pluginNames(['a'], 'b, a,c', ['c', 'd'])).toEqual(['a', 'b', 'c', 'd']);
  });

  it.each([
    ['a missing file', ['./nope.mjs'], /plugin "\.\/nope\.mjs" not found: no file or folder .*project[/\\]nope\.mjs/],
    [
      'a package not installed',
      ['km-plugin-nope'],
      /plugin "km-plugin-nope" not found: no package "km-plugin-nope" in .*project[/\\]node_modules/,
    ],
    [
      'a module without kmPlugin',
      ['../no-export.mjs'],
      /plugin "\.\.\/no-export\.mjs" \(.*\) has no "kmPlugin" export \(it exports somethingElse\)/,
    ],
    ['a module that throws', ['../throws.mjs'], /plugin "\.\.\/throws\.mjs" \(.*\) failed to load: boom at load/],
    [
      'a factory without create',
      ['../no-create.mjs'],
      /plugin "\.\.\/no-create\.mjs": kmPlugin\.queues\[0\] \(type "q"\) has no create function/,
    ],
    ['a factory without type', ['../no-type.mjs'], /plugin "\.\.\/no-type\.mjs": kmPlugin\.memoryDbs\[0\]\.type must be a name/],
    [
      'a type of a built-in connector',
      ['../postgres-plugin.mjs'],
      /plugin "\.\.\/postgres-plugin\.mjs": its memoryDbs factory type "postgres" is already taken by km \(built in\)/,
    ],
    [
      'a type the service configures itself',
      ['../simple-plugin.mjs'],
      /its memoryDbs factory type "simple" is already taken by km \(built in\)/,
    ],
    [
      'a type of another plugin',
      ['../demo-plugin.mjs', '../other-plugin.mjs'],
      /plugin "\.\.\/other-plugin\.mjs": its memoryDbs factory type "demo-mem" is already taken by plugin "\.\.\/demo-plugin\.mjs"/,
    ],
  ])('refuses %s with a clear invalid_argument error', async (_name, specs, message) => {
    const loading = loadPlugins(specs, { cwd: cwd() });
    await expect(loading).rejects.toThrow(message);
    await expect(loadPlugins(specs, { cwd: cwd() })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('stops startService when a plugin cannot be loaded', async () => {
    await expect(startTestService({ plugins: [join(dir, 'missing.mjs')] })).rejects.toThrow(/plugin ".*missing\.mjs" not found/);
  });
});
