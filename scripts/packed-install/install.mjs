// Step 3: install the project with npm or pnpm from the registry and the tarballs, then check
// what came in: no peer dependency left missing or unmet, no install script outside the allow
// list, no telemetry package.
import { existsSync } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mustRun, run } from './processes.mjs';
import { fail } from './transcript.mjs';

/**
 * Packages whose install scripts may run, and why each is harmless.
 * - `tesseract.js` (@km/decoders' OCR): its postinstall runs `opencollective-postinstall`, which
 *   only prints a donation banner (no network, nothing written).
 * The workspace's own packages have no install scripts and no native builds.
 */
export const INSTALL_SCRIPT_ALLOW_LIST = new Map([['tesseract.js', 'prints an OpenCollective banner']]);

/**
 * Packages that report usage or installs to a third party. None may be in the installed tree:
 * a dependency that brings one is dropped or replaced.
 */
export const TELEMETRY_PACKAGES = new Set([
  '@scarf/scarf',
  'scarf-js',
  'posthog-node',
  'posthog-js',
  'mixpanel',
  'analytics-node',
  '@segment/analytics-node',
  '@amplitude/analytics-node',
  'universal-analytics',
  'insight',
  'applicationinsights',
]);

/** pnpm's one-line summary of peer issues (the details come from `pnpm peers check`). */
const PNPM_PEER_SUMMARY = /issues with peer dependencies found\. run "pnpm peers check"/i;

/**
 * Unmet peers that come from upstream packages alone, which no km package can fix: each is
 * tolerated only where it is described, printed in the transcript, and reported as stale when it
 * no longer shows (remove it then). Anything else fails.
 */
export const KNOWN_UPSTREAM_PEER_ISSUES = [
  {
    peer: '@opentelemetry/api',
    wantedBy: '@opentelemetry/core',
    via: '@elastic/transport',
    why:
      '@elastic/transport (all of 8.x and 9.x; under @km/memorydb-elasticsearch) depends on @opentelemetry/api 1.x and @opentelemetry/core 2.x, ' +
      'whose peer range ends below api 1.10; pnpm resolves its api 1.x to 1.10.0 (npm dedupes to the 1.9.1 @km/core pins). ' +
      'A pnpm user silences it with overrides `@opentelemetry/api: 1.9.1`.',
  },
];

/** Lines of an install's output that report a missing, unmet or conflicting peer dependency. */
const PEER_PROBLEM =
  /missing peer|unmet peer|incorrect peer|invalid peer|peer dep(endency|endencies)? (missing|conflict)|ERESOLVE|issues with peer dependencies/i;

/**
 * @typedef {{ name: string, version: string, directory: string, scripts: Record<string, string>, nativeBuild: boolean }} InstalledPackage
 */

/**
 * Installs the project and runs the checks; returns the detail lines for the transcript.
 * @param {string} directory
 * @param {import('./project.mjs').PackageManager} manager
 * @returns {Promise<string[]>}
 */
export async function installProject(directory, manager) {
  const { output } =
    manager === 'npm'
      ? await mustRun('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=warn'], {
          cwd: directory,
          timeoutMs: 300_000,
        })
      : await mustRun('pnpm', ['install', '--reporter=append-only'], { cwd: directory, timeoutMs: 300_000 });
  // pnpm's summary line points to `pnpm peers check`, which checkPnpmPeers reads; every other peer line fails.
  const peerLines = output.split('\n').filter((line) => PEER_PROBLEM.test(line) && !(manager === 'pnpm' && PNPM_PEER_SUMMARY.test(line)));
  if (peerLines.length > 0) fail(`${manager} install reported peer dependency problems:`, output);
  const tolerated = manager === 'npm' ? await checkNpmTree(directory) : await checkPnpmPeers(directory);

  const installed = await installedPackages(join(directory, 'node_modules'));
  const scripted = installed.filter(hasInstallScript);
  const notAllowed = scripted.filter((p) => !INSTALL_SCRIPT_ALLOW_LIST.has(p.name));
  if (notAllowed.length > 0)
    fail(
      `install scripts outside the allow list (${[...INSTALL_SCRIPT_ALLOW_LIST.keys()].join(', ')}):`,
      notAllowed.map((p) => `${p.name}@${p.version}: ${describeInstallScript(p)}`).join('\n'),
    );
  const telemetry = installed.filter((p) => TELEMETRY_PACKAGES.has(p.name));
  if (telemetry.length > 0)
    fail('telemetry packages in the installed tree:', telemetry.map((p) => `${p.name}@${p.version} at ${p.directory}`).join('\n'));

  const warnings = installWarnings(output).filter((line) => !PNPM_PEER_SUMMARY.test(line));
  return [
    `${unique(installed).length} packages installed (${unique(installed.filter((p) => p.name.startsWith('@km/'))).length} of them @km)`,
    `no peer dependency missing or unmet (install output and ${manager === 'npm' ? '`npm ls --all`' : '`pnpm peers check`'})${tolerated.length > 0 ? ' but for a known upstream issue:' : ''}`,
    ...tolerated.map((line) => `  KNOWN UPSTREAM ISSUE: ${line}`),
    `install scripts: ${scripted.length === 0 ? 'none' : [...new Set(scripted.map((p) => p.name))].map((name) => `${name} (allowed: ${INSTALL_SCRIPT_ALLOW_LIST.get(name)})`).join(', ')}`,
    `no telemetry package (${TELEMETRY_PACKAGES.size} names checked)`,
    ...warnings.slice(0, 10).map((line) => `${manager} warned: ${line}`),
    ...(warnings.length > 10 ? [`... and ${warnings.length - 10} more warnings`] : []),
  ];
}

/**
 * The warnings of an install's output, one line each. Engine warnings (npm's multi-line
 * EBADENGINE blocks, pnpm's `Unsupported engine` lines) are grouped by the Node range wanted:
 * `engine: node >=22 wanted by a@1, b@2 (this is v20...)`; other warnings as they are.
 * @param {string} output
 * @returns {string[]}
 */
export function installWarnings(output) {
  /** @type {Map<string, Set<string>>} */
  const byRange = new Map();
  const engine = (pkg, range) => byRange.set(range, (byRange.get(range) ?? new Set()).add(pkg));
  for (const m of output.matchAll(/EBADENGINE\s+package: '([^']+)',\s*\n.*EBADENGINE\s+required: \{ node: '([^']+)' \}/g))
    engine(m[1], m[2]);
  for (const m of output.matchAll(/Unsupported engine for (\S+): wanted: \{"node":"([^"]+)"\}/g)) engine(m[1], m[2]);
  const others = output
    .split('\n')
    .filter((line) => /^\s*(npm warn\b|\[WARN\]|WARN\b)/i.test(line) && !/EBADENGINE|Unsupported engine/.test(line))
    .map((line) => line.trim().replace(/^(npm warn|\[WARN\]|WARN)\s+/i, ''));
  return [
    ...[...byRange].map(([range, pkgs]) => `engine: node ${range} wanted by ${[...pkgs].sort().join(', ')} (this is ${process.version})`),
    ...others,
  ];
}

/**
 * `npm ls --all`: fails on any problem npm sees in the tree (missing, invalid or extraneous, peers included).
 * @returns {Promise<string[]>} the known upstream issues tolerated (none: npm has none today)
 */
async function checkNpmTree(directory) {
  const { stdout, output } = await run('npm', ['ls', '--all', '--json'], { cwd: directory });
  let problems;
  try {
    problems = JSON.parse(stdout).problems ?? [];
  } catch {
    fail('npm ls --all --json printed no JSON', output);
  }
  if (problems.length > 0)
    fail(`npm ls --all found ${problems.length} problem(s) in the installed tree:`, problems.slice(0, 30).join('\n'));
  return [];
}

/**
 * `pnpm peers check --json`: fails on a missing peer, a conflict, or an unmet peer that is not a
 * {@link KNOWN_UPSTREAM_PEER_ISSUES} entry; returns the tolerated ones, described.
 * @param {string} directory
 * @returns {Promise<string[]>}
 */
async function checkPnpmPeers(directory) {
  const { stdout, output } = await run('pnpm', ['peers', 'check', '--json'], { cwd: directory });
  let report;
  try {
    report = JSON.parse(stdout);
  } catch {
    fail('pnpm peers check --json printed no JSON', output);
  }
  const unexpected = [];
  const tolerated = new Map();
  for (const [project, issues] of Object.entries(report)) {
    for (const [peer, list] of Object.entries(issues.missing ?? {}))
      unexpected.push(`${project}: missing peer ${peer} (${JSON.stringify(list)})`);
    for (const conflict of issues.conflicts ?? []) unexpected.push(`${project}: peer conflict ${JSON.stringify(conflict)}`);
    for (const [peer, list] of Object.entries(issues.bad ?? {})) {
      for (const issue of list) {
        const chain = issue.parents.map((p) => `${p.name}@${p.version}`);
        const wanter = issue.parents.at(-1)?.name;
        const known = KNOWN_UPSTREAM_PEER_ISSUES.find(
          (k) => k.peer === peer && k.wantedBy === wanter && issue.parents.some((p) => p.name === k.via),
        );
        const line = `unmet peer ${peer}@"${issue.wantedRange}" (found ${issue.foundVersion}) of ${chain.join(' > ')}`;
        if (known) tolerated.set(known, line);
        else unexpected.push(`${project}: ${line}`);
      }
    }
  }
  if (unexpected.length > 0) fail(`pnpm peers check found ${unexpected.length} peer dependency problem(s):`, unexpected.join('\n'));
  const stale = KNOWN_UPSTREAM_PEER_ISSUES.filter((k) => !tolerated.has(k));
  return [
    ...[...tolerated].map(([known, line]) => `${line}. ${known.why}`),
    ...stale.map((k) => `no longer seen (remove it from KNOWN_UPSTREAM_PEER_ISSUES): ${k.peer} of ${k.wantedBy} via ${k.via}`),
  ];
}

/**
 * Every package folder of an installed tree: npm's nested `node_modules` and pnpm's
 * `node_modules/.pnpm/<id>/node_modules`, skipping links (pnpm's top-level entries and
 * workspace-style links point into the same tree).
 * @param {string} nodeModules
 * @returns {Promise<InstalledPackage[]>}
 */
export async function installedPackages(nodeModules) {
  /** @type {InstalledPackage[]} */
  const found = [];
  /** @param {string} folder a node_modules folder */
  async function visitModules(folder) {
    for (const entry of await readdir(folder).catch(() => [])) {
      const path = join(folder, entry);
      if (entry === '.pnpm') {
        for (const id of await readdir(path)) await visitModules(join(path, id, 'node_modules'));
      } else if (entry.startsWith('.')) {
        continue;
      } else if (entry.startsWith('@')) {
        for (const scoped of await readdir(path).catch(() => [])) await visitPackage(join(path, scoped));
      } else {
        await visitPackage(path);
      }
    }
  }
  /** @param {string} directory */
  async function visitPackage(directory) {
    const stats = await lstat(directory);
    if (stats.isSymbolicLink() || !stats.isDirectory()) return;
    const manifest = await readFile(join(directory, 'package.json'), 'utf8').catch(() => undefined);
    if (manifest !== undefined) {
      const { name, version, scripts } = JSON.parse(manifest);
      found.push({ name, version, directory, scripts: scripts ?? {}, nativeBuild: existsSync(join(directory, 'binding.gyp')) });
    }
    await visitModules(join(directory, 'node_modules'));
  }
  await visitModules(nodeModules);
  return found;
}

/** Whether installing the package runs code: a preinstall, install or postinstall script, or a binding.gyp (npm then runs `node-gyp rebuild`). */
function hasInstallScript(p) {
  return ['preinstall', 'install', 'postinstall'].some((s) => typeof p.scripts[s] === 'string') || p.nativeBuild;
}

function describeInstallScript(p) {
  const scripts = ['preinstall', 'install', 'postinstall']
    .filter((s) => typeof p.scripts[s] === 'string')
    .map((s) => `${s}: ${p.scripts[s]}`);
  return scripts.length > 0 ? scripts.join('; ') : 'binding.gyp (node-gyp rebuild)';
}

/** The distinct `name@version`s of a tree. */
function unique(installed) {
  return [...new Set(installed.map((p) => `${p.name}@${p.version}`))];
}
