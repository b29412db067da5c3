#!/usr/bin/env node
// `pnpm check:release` (second half): every published package under packages/ carries the
// metadata npm shows and provenance needs, ships a README with a code example, and ships what its
// entry points and source maps point to.
//
//   node scripts/check-package-metadata.mjs [repo-root]
//
// Exit codes: 0 all packages pass, 1 problems (listed per package).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPOSITORY_URL = 'git+https://github.com/km-memory/km.git';
export const ISSUES_URL = 'https://github.com/km-memory/km/issues';

/** @param {unknown} value */
const isText = (value) => typeof value === 'string' && value.trim().length > 0;

/** Package-relative path ("./dist/x.js" → "dist/x.js"). @param {string} path */
const normalize = (path) => posix.normalize(path.replaceAll('\\', '/')).replace(/^\.\//, '');

/**
 * Whether `files` (package.json) puts a package-relative path in the tarball. Entries are folders
 * or files; globs and negations are not used in this repository and count as not covering.
 * @param {string[]} files
 * @param {string} path
 */
export function coveredByFiles(files, path) {
  const p = normalize(path);
  if (p === 'package.json' || /^readme(\.md)?$/i.test(p)) return true;
  return files.some((entry) => {
    const f = normalize(entry).replace(/\/$/, '');
    return !f.includes('*') && !f.startsWith('!') && (p === f || p.startsWith(`${f}/`));
  });
}

/** Every file path an `exports` tree, `main` and `types` name. @param {Record<string, unknown>} pkg */
function entryPaths(pkg) {
  const paths = [];
  const walk = (node) => {
    if (typeof node === 'string') paths.push(node);
    else if (node && typeof node === 'object') for (const child of Object.values(node)) walk(child);
  };
  walk(pkg.exports);
  for (const field of ['main', 'types', 'typings', 'module']) if (typeof pkg[field] === 'string') paths.push(pkg[field]);
  return [...new Set(paths.filter((p) => !p.includes('*')))];
}

/** @param {string} dir */
function* mapFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* mapFiles(path);
    else if (entry.name.endsWith('.map')) yield path;
  }
}

/**
 * Problems of one package folder, or `undefined` when it is not published (no package.json, or
 * `private: true`).
 * @param {string} packageDir absolute path of packages/<folder>
 * @param {{ folderPath?: string }} [options] the folder as written in `repository.directory`
 *   (default `packages/<folder name>`)
 * @returns {string[] | undefined}
 */
export function checkPackageMetadata(packageDir, options = {}) {
  const manifest = join(packageDir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  /** @type {Record<string, any>} */
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  if (pkg.private === true) return undefined;
  const folder = options.folderPath ?? `packages/${packageDir.split(sep).pop()}`;
  const problems = [];
  const need = (ok, message) => {
    if (!ok) problems.push(message);
  };

  need(isText(pkg.name), 'no "name"');
  need(isText(pkg.version), 'no "version"');
  need(isText(pkg.description), 'no "description"');
  need(isText(pkg.license), 'no "license"');
  const repo = pkg.repository;
  need(repo && typeof repo === 'object', 'no "repository" object ({ type, url, directory })');
  if (repo && typeof repo === 'object') {
    need(repo.type === 'git', '"repository.type" is not "git"');
    need(repo.url === REPOSITORY_URL, `"repository.url" is not "${REPOSITORY_URL}"`);
    need(repo.directory === folder, `"repository.directory" is not "${folder}"`);
  }
  need(isText(pkg.homepage) && pkg.homepage.startsWith('https://'), 'no "homepage" (https URL)');
  if (isText(pkg.homepage)) need(pkg.homepage.includes(`/${folder}`), `"homepage" does not point to ${folder}`);
  need(isText(pkg.bugs?.url), 'no "bugs.url"');
  need(pkg.publishConfig?.access === 'public', '"publishConfig.access" is not "public"');
  need(pkg.publishConfig?.provenance === true, '"publishConfig.provenance" is not true');
  need(isText(pkg.engines?.node), 'no "engines.node"');
  const files = Array.isArray(pkg.files) ? pkg.files.filter((f) => typeof f === 'string') : undefined;
  need(files !== undefined, 'no "files" list');
  if (files) {
    need(
      files.some((f) => normalize(f) === 'dist'),
      '"files" lacks "dist"',
    );
    need(
      files.some((f) => normalize(f) === 'README.md'),
      '"files" lacks "README.md"',
    );
    for (const path of entryPaths(pkg)) need(coveredByFiles(files, path), `entry point ${path} is not in "files"`);
  }

  const readme = join(packageDir, 'README.md');
  if (!existsSync(readme)) problems.push('README.md is missing');
  else {
    const text = readFileSync(readme, 'utf8');
    if (text.trim().length === 0) problems.push('README.md is empty');
    else need(/^(```|~~~)[^\n]*\n[\s\S]*?\S[\s\S]*?\n\1\s*$/m.test(text), 'README.md has no code example (a fenced ``` block)');
  }

  // Built output (checked when dist exists, as after `pnpm build`): the entry points exist, and
  // every source a source map names is shipped too (or embedded), so maps never dangle.
  const dist = join(packageDir, 'dist');
  if (files && existsSync(dist) && statSync(dist).isDirectory()) {
    for (const path of entryPaths(pkg)) need(existsSync(join(packageDir, path)), `entry point ${path} does not exist after the build`);
    const missing = new Set();
    for (const map of mapFiles(dist)) {
      let parsed;
      try {
        parsed = JSON.parse(readFileSync(map, 'utf8'));
      } catch {
        problems.push(`${relative(packageDir, map)} is not valid JSON`);
        continue;
      }
      const sources = Array.isArray(parsed.sources) ? parsed.sources : [];
      sources.forEach((source, i) => {
        if (typeof source !== 'string' || /^[a-z]+:/i.test(source)) return;
        if (typeof parsed.sourcesContent?.[i] === 'string') return;
        const path = relative(packageDir, resolve(dirname(map), parsed.sourceRoot ?? '', source))
          .split(sep)
          .join('/');
        if (path.startsWith('..') || !coveredByFiles(files, path) || !existsSync(join(packageDir, path))) missing.add(path);
      });
    }
    if (missing.size > 0) {
      const list = [...missing].sort();
      problems.push(
        `source maps in dist name ${list.length} source file(s) the package does not ship (add their folder to "files"): ${list.slice(0, 3).join(', ')}${list.length > 3 ? ', …' : ''}`,
      );
    }
  }
  return problems;
}

/**
 * Problems of every published package under `<root>/packages`, by folder name; folders without
 * problems are left out.
 * @param {string} root repository root
 * @returns {{ checked: string[], problems: Record<string, string[]> }}
 */
export function checkAllPackages(root) {
  const packagesDir = join(root, 'packages');
  const checked = [];
  /** @type {Record<string, string[]>} */
  const problems = {};
  for (const folder of readdirSync(packagesDir).sort()) {
    const dir = join(packagesDir, folder);
    if (!statSync(dir).isDirectory()) continue;
    const found = checkPackageMetadata(dir, { folderPath: `packages/${folder}` });
    if (found === undefined) continue;
    checked.push(folder);
    if (found.length > 0) problems[folder] = found;
  }
  return { checked, problems };
}

function main() {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const { checked, problems } = checkAllPackages(root);
  const failing = Object.keys(problems);
  for (const folder of failing) {
    console.error(`packages/${folder}:`);
    for (const problem of problems[folder] ?? []) console.error(`  - ${problem}`);
  }
  if (failing.length > 0) {
    console.error(`\n${failing.length} of ${checked.length} published packages have metadata problems`);
    process.exit(1);
  }
  console.log(`package metadata: ${checked.length} published packages pass`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
