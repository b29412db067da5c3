#!/usr/bin/env node
// `pnpm pack:tarballs [folder]`: packs every public package (built first) into `folder`
// (default ./km-packages) and prints how a project outside this repository installs them with
// npm or pnpm, until the packages are on the npm registry. `scripts/packed-install/run.mjs`
// (pnpm test:packed) proves in CI that such an install works.
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packAll, publicPackages } from './packed-install/pack.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const destination = resolve(process.argv[2] ?? join(repo, 'km-packages'));
await rm(destination, { recursive: true, force: true });
await mkdir(destination, { recursive: true });
const packed = await packAll(repo, await publicPackages(repo), destination);
const total = packed.reduce((sum, p) => sum + p.size, 0);
console.log(`${packed.length} packages packed into ${destination} (${(total / 1e6).toFixed(1)} MB)\n`);
const files = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
console.log('In your project, add the packages you use as dependencies, and every @km package as an');
console.log('override (their dependencies on each other are not on the registry yet). npm, in package.json:\n');
console.log(JSON.stringify({ dependencies: { '@km/core': files['@km/core'] }, overrides: files }, null, 2));
console.log('\npnpm, in pnpm-workspace.yaml (or a plain project: `pnpm add` the tarball paths):\n');
console.log(['overrides:', ...packed.map((p) => `  '${p.name}': 'file:${p.tarball}'`)].join('\n'));
