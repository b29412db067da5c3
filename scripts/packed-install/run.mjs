#!/usr/bin/env node
// The packed packages, installed as a user would (issue 38): packs every public workspace package,
// checks what the tarballs ship, installs them into fresh projects outside the workspace with npm
// and with pnpm (overrides map each @km name to its tarball), and in those projects type-checks and
// runs @km/core's README example, runs `km serve` (upload, ask, list documents) and `km mcp`
// (tools over stdio), and a tiny connector's conformance suite from the packed @km/conformance.
//
//   pnpm build && pnpm test:packed      (node scripts/packed-install/run.mjs)
//
// Needs the built workspace (dist/), npm, pnpm and the npm registry. Prints a transcript; exits 1
// on the first failure with what failed. Everything happens under one folder in os.tmpdir(),
// removed at the end (`--keep` leaves it, to look into a failure).
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONNECTOR_FILES, checkConformance, writeConnector } from './conformance-check.mjs';
import { INSTALL_SCRIPT_ALLOW_LIST, installProject } from './install.mjs';
import { checkMcpTools } from './mcp-check.mjs';
import { checkTarballs, packAll, publicPackages } from './pack.mjs';
import { mustRun } from './processes.mjs';
import { writeProject } from './project.mjs';
import { checkExample, readmeExample } from './readme-example.mjs';
import { checkService } from './service-check.mjs';
import { CheckFailure, elapsed, formatBytes, step } from './transcript.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What the projects take from the registry besides the tarballs' own dependencies, at the workspace's versions. */
async function registryDependencies() {
  const root = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'));
  const mcp = JSON.parse(await readFile(join(repo, 'packages', 'mcp', 'package.json'), 'utf8'));
  return {
    typescript: root.devDependencies.typescript,
    '@types/node': root.devDependencies['@types/node'],
    vitest: root.devDependencies.vitest,
    // The client side of the MCP check, the same version @km/mcp serves with (deduplicated with it).
    '@modelcontextprotocol/sdk': mcp.dependencies['@modelcontextprotocol/sdk'],
  };
}

async function main(work) {
  const [npmVersion, pnpmVersion] = await Promise.all([
    mustRun('npm', ['--version'], { cwd: work }).then((r) => r.stdout.trim()),
    mustRun('pnpm', ['--version'], { cwd: work }).then((r) => r.stdout.trim()),
  ]);
  process.stdout.write(`packed install check: node ${process.version}, npm ${npmVersion}, pnpm ${pnpmVersion}; work folder ${work}\n`);
  const packages = await publicPackages(repo);
  const tarballs = join(work, 'tarballs');
  await mkdir(tarballs);

  /** @type {import('./pack.mjs').PackedPackage[]} */
  let packed = [];
  await step(`pack the ${packages.length} public packages (pnpm -r pack)`, async () => {
    packed = await packAll(repo, packages, tarballs);
    const total = packed.reduce((sum, p) => sum + p.size, 0);
    const lines = packed.map(
      (p) => `${p.name.padEnd(30)} ${p.version.padEnd(8)} ${formatBytes(p.size).padStart(9)}  ${p.files.length} files`,
    );
    return [...lines, `${packed.length} tarballs, ${formatBytes(total)} in all`];
  });

  await step(
    'check the tarballs: only package.json, README.md, LICENSE*, CHANGELOG.md and dist/** (no sources, tests, .tsbuildinfo); maps embed their sources',
    async () => {
      await checkTarballs(packed, join(work, 'unpacked'));
      return [
        `${packed.reduce((n, p) => n + p.files.length, 0)} files in ${packed.length} tarballs: all allowed; no map names a missing source`,
      ];
    },
  );

  const example = await readmeExample(join(repo, 'packages', 'core', 'README.md'));
  const dependencies = await registryDependencies();

  const npmProject = join(work, 'npm-project');
  await mkdir(npmProject);
  await step(`npm: install the ${packed.length} tarballs into a fresh project (file: dependencies, overrides for @km/*)`, async () => {
    await writeProject(npmProject, 'npm', packed, dependencies, [...INSTALL_SCRIPT_ALLOW_LIST.keys()]);
    await writeConnector(npmProject);
    return installProject(npmProject, 'npm');
  });
  await step("npm: @km/core README's example: type-check (with the conformance connector), compile, run", () =>
    checkExample(npmProject, example, CONNECTOR_FILES),
  );
  await step('npm: km serve (embedded defaults, no key, port 0): upload, ask, list documents, stop', () =>
    checkService(npmProject, join(work, 'serve-data')),
  );
  await step('npm: km mcp over stdio: list the tools', () => checkMcpTools(npmProject, join(work, 'mcp-data-npm')));
  await step("npm: a Map connector's conformance suite (describeMemoryDb from the packed @km/conformance)", () =>
    checkConformance(npmProject),
  );

  const pnpmProject = join(work, 'pnpm-project');
  await mkdir(pnpmProject);
  await step(
    `pnpm: install the ${packed.length} tarballs into a fresh project (file: dependencies, overrides for @km/* in pnpm-workspace.yaml)`,
    async () => {
      await writeProject(pnpmProject, 'pnpm', packed, dependencies, [...INSTALL_SCRIPT_ALLOW_LIST.keys()]);
      return installProject(pnpmProject, 'pnpm');
    },
  );
  await step("pnpm: @km/core README's example: type-check, compile, run", () => checkExample(pnpmProject, example));
  await step('pnpm: km --version and km mcp tools', async () => {
    const { stdout } = await mustRun(join(pnpmProject, 'node_modules', '.bin', 'km'), ['--version'], { cwd: pnpmProject });
    return [`km --version: ${stdout.trim()}`, ...(await checkMcpTools(pnpmProject, join(work, 'mcp-data-pnpm')))];
  });
}

const keep = process.argv.includes('--keep');
const start = performance.now();
const work = await mkdtemp(join(tmpdir(), 'km-packed-'));
const removeWork = () => rmSync(work, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    if (!keep) removeWork();
    process.exit(130);
  });
}
try {
  await main(work);
  process.stdout.write(`packed install check passed in ${elapsed(start)}\n`);
} catch (error) {
  process.exitCode = 1;
  if (error instanceof CheckFailure) {
    process.stdout.write(`\npacked install check FAILED after ${elapsed(start)}: ${error.message}\n`);
    if (error.output) process.stdout.write(`${error.output}\n`);
  } else {
    process.stdout.write(`\npacked install check FAILED after ${elapsed(start)}:\n`);
    process.stdout.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
} finally {
  if (keep) process.stdout.write(`--keep: the work folder stays at ${work}\n`);
  else await rm(work, { recursive: true, force: true });
}
