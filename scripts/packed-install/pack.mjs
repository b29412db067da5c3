// Step 1 and 2: pack every public workspace package (pnpm rewrites `workspace:` ranges to real
// versions) and check what each tarball ships.
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { mustRun } from './processes.mjs';
import { fail } from './transcript.mjs';

/**
 * @typedef {{ name: string, version: string, directory: string }} WorkspacePackage
 * @typedef {WorkspacePackage & { tarball: string, size: number, files: string[] }} PackedPackage
 */

/**
 * The workspace's public packages (`packages/*` without `"private": true`), by name.
 * @param {string} repo the repository root
 * @returns {Promise<WorkspacePackage[]>}
 */
export async function publicPackages(repo) {
  const found = [];
  for (const folder of await readdir(join(repo, 'packages'))) {
    const directory = join(repo, 'packages', folder);
    const manifest = await readFile(join(directory, 'package.json'), 'utf8').catch(() => undefined);
    if (manifest === undefined) continue;
    const { name, version, private: isPrivate } = JSON.parse(manifest);
    if (isPrivate !== true) found.push({ name, version, directory });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Packs the packages with one `pnpm -r pack` into `destination`, and lists each tarball's files.
 * @param {string} repo
 * @param {WorkspacePackage[]} packages
 * @param {string} destination a folder outside the repository
 * @returns {Promise<PackedPackage[]>}
 */
export async function packAll(repo, packages, destination) {
  const filters = packages.flatMap((p) => ['--filter', p.name]);
  await mustRun('pnpm', ['-r', ...filters, 'pack', '--pack-destination', destination], { cwd: repo });
  const packed = [];
  for (const p of packages) {
    const tarball = join(destination, `${p.name.replace(/^@/, '').replace('/', '-')}-${p.version}.tgz`);
    const size = await stat(tarball).then(
      (s) => s.size,
      () => fail(`pnpm pack wrote no ${tarball} for ${p.name}`),
    );
    const { stdout } = await mustRun('tar', ['-tzf', tarball], { cwd: destination });
    const files = stdout
      .split('\n')
      .filter((line) => line.length > 0 && !line.endsWith('/'))
      .map((line) => line.replace(/^package\//, ''));
    packed.push({ ...p, tarball, size, files });
  }
  return packed;
}

/** Files a package may ship at its root, besides `dist/**`. */
const ROOT_FILES = /^(package\.json|README\.md|CHANGELOG\.md|LICENSE[^/]*)$/;
/** Folder names that hold sources or tests, never shipped (also not inside dist). */
const SOURCE_OR_TEST_FOLDERS = new Set(['src', 'test', 'tests', '__tests__', '__mocks__', 'fixtures']);
/** Test files and compiler state. */
const TEST_OR_BUILD_STATE_FILE = /(\.(test|spec)\.[cm]?[jt]sx?$)|(\.(test|spec)\.d\.[cm]?ts$)|(\.tsbuildinfo$)/;

/**
 * Why a tarball's file may not ship, or undefined when it may: only `package.json`, `README.md`,
 * `LICENSE*`, `CHANGELOG.md` and `dist/**`, and in dist no source or test folder, test file or
 * `.tsbuildinfo`.
 * @param {string} file the path inside the package
 * @returns {string | undefined}
 */
export function unshippableReason(file) {
  if (ROOT_FILES.test(file)) return undefined;
  if (!file.startsWith('dist/')) return 'outside dist';
  if (file.split('/').some((segment) => SOURCE_OR_TEST_FOLDERS.has(segment))) return 'a source or test folder';
  if (TEST_OR_BUILD_STATE_FILE.test(file)) return 'a test file or compiler state';
  return undefined;
}

/**
 * Checks every tarball's file list, and that every source map in it names only sources it
 * embeds (`sourcesContent`) or ships; fails listing every offending file.
 * @param {PackedPackage[]} packed
 * @param {string} extractRoot a scratch folder for unpacking the maps
 */
export async function checkTarballs(packed, extractRoot) {
  const problems = [];
  for (const p of packed) {
    for (const file of p.files) {
      const reason = unshippableReason(file);
      if (reason) problems.push(`${p.name}: ${file} (${reason})`);
    }
    if (!p.files.includes('package.json') || !p.files.includes('README.md')) problems.push(`${p.name}: package.json or README.md missing`);
    const maps = p.files.filter((f) => f.endsWith('.map'));
    if (maps.length === 0) continue;
    const folder = join(extractRoot, p.name.replace('/', '__'));
    await mkdir(folder, { recursive: true });
    await mustRun('tar', ['-xzf', p.tarball, '-C', folder, ...maps.map((m) => `package/${m}`)], { cwd: folder });
    const shipped = new Set(p.files);
    for (const map of maps) {
      const parsed = JSON.parse(await readFile(join(folder, 'package', map), 'utf8'));
      const sources = Array.isArray(parsed.sources) ? parsed.sources : [];
      sources.forEach((source, i) => {
        if (typeof parsed.sourcesContent?.[i] === 'string') return;
        const path = posix.normalize(posix.join(posix.dirname(map), parsed.sourceRoot ?? '', source));
        if (!shipped.has(path)) problems.push(`${p.name}: ${map} names ${source}, neither embedded nor shipped`);
      });
    }
  }
  if (problems.length > 0) fail(`${problems.length} file(s) in the tarballs should not ship or dangle:`, problems.slice(0, 40).join('\n'));
}
