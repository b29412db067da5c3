// Builds hnswlib-node (a peer of the vector bench, an optional dependency of @km/bench) with
// node-gyp against the Node headers installed beside the running node, so the install downloads
// nothing. pnpm's own build of the package is off (`allowBuilds: hnswlib-node: false` in
// pnpm-workspace.yaml): node-gyp would fetch the headers tarball from the internet. Run as
// @km/bench's postinstall; never fails the install: without headers or a compiler it says why, and
// the bench prints `n/a` for hnswlib-node.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The package folder of hnswlib-node, or undefined when it is not installed. */
function packageDir() {
  try {
    return dirname(require.resolve('hnswlib-node/package.json'));
  } catch {
    return undefined;
  }
}

/**
 * A folder whose include/node holds the headers of this very Node version: `npm_config_nodedir`
 * when set, else the prefix the node binary was installed under (Debian's /usr, an official
 * tarball's or nvm's folder).
 */
export function findNodeDir(env = process.env, execPath = process.execPath, version = process.version) {
  const candidates = [env.npm_config_nodedir, env.NODEDIR, dirname(dirname(execPath))].filter(Boolean);
  for (const dir of candidates) {
    const header = join(dir, 'include', 'node', 'node_version.h');
    if (existsSync(header) && headerVersion(readFileSync(header, 'utf8')) === version) return dir;
  }
  return undefined;
}

/** `v<major>.<minor>.<patch>` from the text of node_version.h. */
export function headerVersion(text) {
  const part = (name) => text.match(new RegExp(`^#define NODE_${name}_VERSION (\\d+)`, 'm'))?.[1];
  return `v${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
}

function main() {
  const dir = packageDir();
  if (!dir) return console.log('hnswlib-node: not installed (optional); the vector bench prints n/a for it');
  if (existsSync(join(dir, 'build', 'Release', 'addon.node'))) return;
  const nodeDir = findNodeDir();
  if (!nodeDir) {
    return console.log(
      `hnswlib-node: not built: no Node ${process.version} headers beside ${process.execPath} (set npm_config_nodedir); the vector bench prints n/a for it`,
    );
  }
  const gyp = spawnSync('node-gyp', ['rebuild', `--nodedir=${nodeDir}`], {
    cwd: dir,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (gyp.status === 0) return console.log(`hnswlib-node: built against the headers in ${nodeDir}`);
  const why = gyp.error?.message ?? (gyp.stderr || gyp.stdout || '').trim().split('\n').slice(-5).join('\n');
  console.log(`hnswlib-node: build failed (the vector bench prints n/a for it):\n${why}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
