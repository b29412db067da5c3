#!/usr/bin/env node
// `pnpm check:release`: runs `changeset version` on a throwaway copy of the workspace manifests
// and the pending changesets, then fails when a package's major version would go up although no
// changeset asks for a major bump of it (for example a peer dependency range that pushes every
// dependent of @km/core to 1.0.0). The repository itself is never modified.
//
//   node scripts/check-release-versions.mjs [repo-root]
//
// Exit codes: 0 no unintended major, 1 unintended majors (listed), 2 the check could not run.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BUMP_TYPES = new Set(['major', 'minor', 'patch', 'none']);

/**
 * The releases a changeset file asks for, read from its front matter.
 * @param {string} text the changeset file's content
 * @returns {{ name: string, type: string }[]}
 */
export function parseChangeset(text) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text.replace(/^\uFEFF/, ''));
  if (!match?.[1]) return [];
  const releases = [];
  for (const line of match[1].split(/\r?\n/)) {
    const entry = /^\s*(["']?)(.+?)\1\s*:\s*(\w+)\s*$/.exec(line);
    if (!entry?.[2] || !entry[3]) continue;
    const type = entry[3].toLowerCase();
    if (!BUMP_TYPES.has(type)) throw new Error(`unknown bump type "${entry[3]}" for ${entry[2]}`);
    releases.push({ name: entry[2], type });
  }
  return releases;
}

/** @param {string} version */
function majorOf(version) {
  const major = Number.parseInt(version.split('.')[0] ?? '', 10);
  if (!Number.isFinite(major)) throw new Error(`not a semver version: "${version}"`);
  return major;
}

/**
 * Packages whose major version goes up without a changeset naming them `major`.
 * @param {{ before: Record<string, string>, after: Record<string, string>, changesets: { releases: { name: string, type: string }[] }[] }} input
 *   versions by package name before and after `changeset version`, and the changesets it consumed
 * @returns {{ name: string, from: string, to: string }[]} sorted by name
 */
export function findUnintendedMajors({ before, after, changesets }) {
  const askedMajor = new Set(changesets.flatMap((c) => c.releases.filter((r) => r.type === 'major').map((r) => r.name)));
  const unintended = [];
  for (const [name, to] of Object.entries(after)) {
    const from = before[name];
    if (from === undefined || askedMajor.has(name)) continue;
    if (majorOf(to) > majorOf(from)) unintended.push({ name, from, to });
  }
  return unintended.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The workspace package folders (relative to root) listed by pnpm-workspace.yaml: `dir/*` globs
 * and plain folders, which is all this repository uses.
 * @param {string} root
 */
export function workspaceFolders(root) {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\s*\n((?:\s+-.*\n?)+)/m.exec(yaml)?.[1] ?? '';
  const folders = [];
  for (const line of block.split('\n')) {
    const pattern = /^\s+-\s*["']?([^"'#\s]+)["']?/.exec(line)?.[1];
    if (!pattern || pattern.startsWith('!')) continue;
    if (pattern.endsWith('/*')) {
      const parent = pattern.slice(0, -2);
      if (!existsSync(join(root, parent))) continue;
      for (const child of readdirSync(join(root, parent)).sort()) {
        if (existsSync(join(root, parent, child, 'package.json'))) folders.push(`${parent}/${child}`);
      }
    } else if (!pattern.includes('*') && existsSync(join(root, pattern, 'package.json'))) {
      folders.push(pattern);
    }
  }
  return folders;
}

/** @param {string} dir */
function readVersions(dir, folders) {
  /** @type {Record<string, string>} */
  const versions = {};
  for (const folder of folders) {
    const pkg = JSON.parse(readFileSync(join(dir, folder, 'package.json'), 'utf8'));
    if (pkg.name && pkg.version) versions[pkg.name] = pkg.version;
  }
  return versions;
}

/**
 * Copies the manifests, changelogs and pending changesets of `root` to a temporary folder, runs
 * `changeset version` there with the CLI installed in `root`, and returns the versions before
 * and after, the changesets read, and the versioned manifests.
 * @param {string} root repository root
 */
export function runChangesetVersion(root) {
  const work = mkdtempSync(join(tmpdir(), 'km-release-check-'));
  try {
    const folders = workspaceFolders(root);
    for (const file of ['package.json', 'pnpm-workspace.yaml']) copyFileSync(join(root, file), join(work, file));
    mkdirSync(join(work, '.changeset'));
    const changesets = [];
    for (const file of readdirSync(join(root, '.changeset'))) {
      const from = join(root, '.changeset', file);
      if (!statSync(from).isFile()) continue;
      copyFileSync(from, join(work, '.changeset', file));
      if (file.endsWith('.md') && file !== 'README.md') {
        changesets.push({ id: file.slice(0, -3), releases: parseChangeset(readFileSync(from, 'utf8')) });
      }
    }
    for (const folder of folders) {
      mkdirSync(join(work, folder), { recursive: true });
      for (const file of ['package.json', 'CHANGELOG.md']) {
        if (existsSync(join(root, folder, file))) copyFileSync(join(root, folder, file), join(work, folder, file));
      }
    }
    // The changelog generator named in config.json is resolved from the copy's .changeset folder.
    if (existsSync(join(root, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'junction');
    // The CLI installed with this script (root package.json devDependencies).
    const require = createRequire(import.meta.url);
    const bin = join(dirname(require.resolve('@changesets/cli/package.json')), 'bin.js');
    const before = readVersions(work, folders);
    try {
      execFileSync(process.execPath, [bin, 'version'], { cwd: work, stdio: 'pipe', env: { ...process.env, CI: '1' } });
    } catch (error) {
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
      throw new Error(`changeset version failed in ${work}:\n${output || error.message}`);
    }
    const after = readVersions(work, folders);
    /** @type {Record<string, unknown>} */
    const manifests = {};
    for (const folder of folders) manifests[folder] = JSON.parse(readFileSync(join(work, folder, 'package.json'), 'utf8'));
    return { before, after, changesets, manifests };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The whole check: versions before and after, and the unintended majors.
 * @param {string} root repository root
 */
export function checkReleaseVersions(root) {
  const result = runChangesetVersion(root);
  return { ...result, unintended: findUnintendedMajors(result) };
}

function main() {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  let result;
  try {
    result = checkReleaseVersions(root);
  } catch (error) {
    console.error(`check-release-versions: ${error.message}`);
    process.exit(2);
  }
  const { before, after, changesets, unintended } = result;
  const changed = Object.keys(after).filter((name) => before[name] !== after[name]);
  console.log(
    `changeset version (${changesets.length} changesets, dry run in a temporary copy of ${relative(process.cwd(), root) || '.'}):`,
  );
  for (const name of changed.sort()) console.log(`  ${name} ${before[name]} -> ${after[name]}`);
  if (changed.length === 0) console.log('  no version changes');
  if (unintended.length > 0) {
    console.error(`\n${unintended.length} package(s) would get a major version no changeset asks for:`);
    for (const { name, from, to } of unintended) console.error(`  ${name} ${from} -> ${to}`);
    console.error(
      '\nA peer dependency range that excludes the next version of an internal package forces a major bump of its dependents:' +
        ' on 0.x use "workspace:^0" for internal peers (see README "Releasing"), or add a changeset that names the package `major`.',
    );
    process.exit(1);
  }
  console.log('no unintended major versions');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
