// The temporary projects a user would make: a package.json depending on every packed package by
// `file:` path, with overrides so that the packages' own @km dependencies (not on the registry)
// resolve to the tarballs too. npm reads `overrides` and `allowScripts` (the dependencies whose
// install scripts may run; npm 11 skips the others) in package.json; pnpm 12 reads `overrides` and
// `allowBuilds` (the same) from pnpm-workspace.yaml only, and ignores a `pnpm` field in package.json.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * @typedef {'npm' | 'pnpm'} PackageManager
 */

/**
 * Writes the project's package.json.
 * @param {string} directory an empty folder outside the repository
 * @param {PackageManager} manager
 * @param {import('./pack.mjs').PackedPackage[]} packed
 * @param {Record<string, string>} registryDependencies what comes from the registry (typescript,
 *   @types/node, vitest, the MCP SDK), at the workspace's versions
 * @param {string[]} allowScripts packages whose install scripts may run
 */
export async function writeProject(directory, manager, packed, registryDependencies, allowScripts) {
  /** @type {Record<string, string>} */
  const tarballs = {};
  for (const p of packed) tarballs[p.name] = `file:${p.tarball}`;
  const manifest = {
    name: `km-packed-${manager}`,
    version: '0.0.0',
    private: true,
    type: 'module',
    dependencies: { ...tarballs, ...registryDependencies },
    // npm accepts an override of a direct dependency when it is the same spec, as here.
    ...(manager === 'npm' ? { overrides: tarballs, allowScripts: Object.fromEntries(allowScripts.map((name) => [name, true])) } : {}),
  };
  await writeFile(join(directory, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (manager === 'pnpm') {
    const yaml = [
      'overrides:',
      ...Object.entries(tarballs).map(([name, spec]) => `  ${JSON.stringify(name)}: ${JSON.stringify(spec)}`),
      'allowBuilds:',
      ...allowScripts.map((name) => `  ${JSON.stringify(name)}: true`),
      '',
    ];
    await writeFile(join(directory, 'pnpm-workspace.yaml'), yaml.join('\n'));
  }
}
