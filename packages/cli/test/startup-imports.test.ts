import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/**
 * Packages a `km` command loads only when it uses them: the storage SDKs (bucket syncs), the
 * OpenAI SDK (a service configured for OpenAI) and the MCP SDK (`km mcp`). Each spawned `km`
 * paid for all of them at start (about 1.4 s, now about 0.7 s).
 */
const ON_DEMAND = [
  '@km/storage-s3',
  '@km/storage-azure-blobs',
  '@km/ai-openai',
  '@km/mcp',
  'openai',
  '@aws-sdk/client-s3',
  '@azure/storage-blob',
];

let dir: string;
let hook: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-imports-'));
  // A module hook that prints every module URL the process loads, one per line, to a file.
  const hooks = join(dir, 'hooks.mjs');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, url + '\\n'); return next(url, context); }\n`,
  );
  hook = join(dir, 'register.mjs');
  await writeFile(hook, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The packages (by name) whose modules `km <args>` loaded. */
async function packagesLoadedBy(args: string[]): Promise<Set<string>> {
  await rm(join(dir, 'loaded.txt'), { force: true });
  const env = {
    ...process.env,
    KM_EMBEDDINGS: 'hashing',
    KM_LOG_LEVEL: 'error',
    KM_URL: '',
    KM_API_KEY: '',
    KM_DATA_DIR: join(dir, 'data'),
  };
  // A command may fail (a service that is not there): what it loaded is what counts.
  await run(process.execPath, ['--import', hook, BIN, ...args], { env, cwd: dir, timeout: 60_000 }).catch(() => undefined);
  const urls = (await readFile(join(dir, 'loaded.txt'), 'utf8')).trim().split('\n');
  const names = new Set<string>();
  for (const url of urls) {
    // pnpm's store path, or a workspace package's folder.
    const stored = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url)?.[1];
    // A workspace package counts when its main module loads (`@km/storage-s3/factory` is light by design).
    const workspace = /\/packages\/([^/]+)\/dist\/index\.js$/.exec(url)?.[1];
    if (stored) names.add(stored);
    if (workspace) names.add(`@km/${workspace}`);
  }
  return names;
}

describe('what a km command loads at start', () => {
  it('km --version and a local search load neither the storage, OpenAI nor MCP SDKs', async () => {
    for (const args of [['--version'], ['search', 'moon']]) {
      const loaded = await packagesLoadedBy(args);
      // The hook saw the command's own modules: an empty list would prove nothing.
      expect([...loaded].filter((name) => ['commander', '@km/core'].includes(name)).sort()).toEqual(['@km/core', 'commander']);
      expect(
        ON_DEMAND.filter((name) => loaded.has(name)),
        `km ${args.join(' ')}`,
      ).toEqual([]);
    }
  });

  it("a command against a service URL does not load the service's own code", async () => {
    const loaded = await packagesLoadedBy(['indexes', '--url', 'http://127.0.0.1:9']);
    expect(loaded.has('@km/client'), 'the client is what it uses').toBe(true);
    expect([...ON_DEMAND, '@km/service', 'fastify'].filter((name) => loaded.has(name))).toEqual([]);
  });
});
