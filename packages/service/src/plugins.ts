import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidInputError } from '@km/core';
import { checkKmPlugin, KM_PLUGIN_EXPORT, KM_PLUGIN_KINDS, pluginFactories } from '@km/core/connector';
import { BUILT_IN_CONNECTORS, RESERVED_TYPES, type Connectors } from './connectors.js';

/** Where {@link loadPlugins} resolves plugins from. */
export interface LoadPluginsOptions {
  /** Bare package names are looked up in `node_modules` from here up; paths are relative to it. @default process.cwd() */
  cwd?: string;
  /** The connectors the plugins are added to. @default BUILT_IN_CONNECTORS */
  builtIn?: Connectors;
}

/**
 * The built-in connectors plus those of each plugin: a package name (`km-memorydb-jsonfile`,
 * found in `node_modules` from `cwd` up, as the user's project installed it) or a path (starting
 * with `.` or `/`, relative to `cwd`: a module file, or a package folder). Each module is
 * imported and must export `kmPlugin` (a {@link KmPlugin}). Throws `invalid_argument` naming
 * the plugin when it cannot be found (and where it was looked for), fails to load, has no
 * `kmPlugin` export or a malformed one, or has a factory whose type is already taken (by a
 * built-in connector or another plugin, both named).
 *
 * ```ts
 * const connectors = await loadPlugins(['./my-connector/dist/index.js', 'km-queue-sqs']);
 * const service = await startService({ connectors });
 * ```
 */
export async function loadPlugins(specs: readonly string[], options: LoadPluginsOptions = {}): Promise<Connectors> {
  const cwd = options.cwd ?? process.cwd();
  const builtIn = options.builtIn ?? BUILT_IN_CONNECTORS;
  if (specs.length === 0) return builtIn;
  const lists = Object.fromEntries(KM_PLUGIN_KINDS.map((kind) => [kind, [...builtIn[kind]]])) as {
    [K in keyof Connectors]: Array<Connectors[K][number]>;
  };
  const owners = new Map<string, string>();
  for (const kind of KM_PLUGIN_KINDS) {
    for (const type of RESERVED_TYPES[kind]) owners.set(`${kind}:${type}`, 'km (built in)');
    for (const factory of builtIn[kind]) owners.set(`${kind}:${factory.type}`, 'km (built in)');
  }
  const loaded = new Set<string>();
  for (const spec of specs) {
    const file = resolvePlugin(spec, cwd);
    if (loaded.has(file)) continue;
    loaded.add(file);
    const plugin = checkKmPlugin(await pluginExport(spec, file), spec);
    for (const { kind, factory } of pluginFactories(plugin)) {
      const owner = owners.get(`${kind}:${factory.type}`);
      if (owner !== undefined) {
        throw new InvalidInputError(
          'invalid_argument',
          `plugin ${JSON.stringify(spec)}: its ${kind} factory type "${factory.type}" is already taken by ${owner === spec ? 'another of its factories' : owner.startsWith('km ') ? owner : `plugin ${JSON.stringify(owner)}`}; rename one of them`,
        );
      }
      owners.set(`${kind}:${factory.type}`, spec);
      (lists[kind] as unknown[]).push(factory);
    }
  }
  return lists;
}

/**
 * The plugins a host loads: those of the configuration file's `plugins`, then of `KM_PLUGINS`
 * (comma-separated), then of `--plugin` flags; all of them, each once.
 */
export function pluginNames(...lists: Array<readonly unknown[] | string | undefined>): string[] {
  const names: string[] = [];
  for (const list of lists) {
    const items = typeof list === 'string' ? list.split(',') : (list ?? []);
    for (const item of items) {
      if (typeof item !== 'string')
        throw new InvalidInputError(
          'invalid_argument',
          `configuration: plugins must be a list of package names or paths, got ${JSON.stringify(item)}`,
        );
      const name = item.trim();
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

const isPath = (spec: string) => spec.startsWith('.') || isAbsolute(spec);

/** The module file of a plugin, or an error that says where it was looked for. */
function resolvePlugin(spec: string, cwd: string): string {
  const notFound = (where: string): never => {
    throw new InvalidInputError('invalid_argument', `plugin ${JSON.stringify(spec)} not found: ${where}`);
  };
  if (isPath(spec)) {
    const path = resolve(cwd, spec);
    if (!existsSync(path)) return notFound(`no file or folder ${path}`);
    if (!statSync(path).isDirectory()) return path;
    return packageEntry(path) ?? notFound(`the folder ${path} has no package.json entry ("exports", "module" or "main") nor index.js`);
  }
  const [scopeOrName, ...rest] = spec.split('/');
  const nameParts = scopeOrName?.startsWith('@') ? 2 : 1;
  const name = spec.split('/').slice(0, nameParts).join('/');
  const subpath = rest.slice(nameParts - 1).join('/');
  const folders = createRequire(join(cwd, 'noop.js')).resolve.paths(name) ?? [];
  for (const folder of folders) {
    const root = join(folder, name);
    if (!existsSync(join(root, 'package.json'))) continue;
    const entry = subpath ? resolveExport(root, `./${subpath}`) : packageEntry(root);
    return entry ?? notFound(`the package in ${root} has no entry${subpath ? ` for "./${subpath}"` : ''} ("exports", "module" or "main")`);
  }
  return notFound(
    `no package "${name}" in ${folders.slice(0, 3).join(', ')}${folders.length > 3 ? ', ...' : ''} (install it in your project, or give a path starting with ./ or /)`,
  );
}

/** A package folder's main module: `exports["."]` (import, node or default condition), else `module`, `main`, `index.js`. */
function packageEntry(root: string): string | undefined {
  return resolveExport(root, '.');
}

function resolveExport(root: string, subpath: string): string | undefined {
  let manifest: { exports?: unknown; module?: unknown; main?: unknown } = {};
  if (existsSync(join(root, 'package.json'))) manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as typeof manifest;
  const { exports } = manifest;
  let target: unknown;
  if (exports !== undefined) {
    const keyed = typeof exports === 'object' && exports !== null && Object.keys(exports).some((k) => k.startsWith('.'));
    target = conditional(keyed ? (exports as Record<string, unknown>)[subpath] : subpath === '.' ? exports : undefined);
  } else if (subpath === '.') {
    target = typeof manifest.module === 'string' ? manifest.module : typeof manifest.main === 'string' ? manifest.main : 'index.js';
  } else {
    target = subpath;
  }
  if (typeof target !== 'string') return undefined;
  const file = resolve(root, target);
  return existsSync(file) ? file : undefined;
}

/** The target of an `exports` entry for an ESM importer under Node. */
function conditional(entry: unknown): unknown {
  if (typeof entry === 'string' || entry === undefined || entry === null) return entry;
  if (Array.isArray(entry)) return entry.map(conditional).find((t) => typeof t === 'string');
  for (const condition of ['import', 'node', 'default']) {
    const target = conditional((entry as Record<string, unknown>)[condition]);
    if (typeof target === 'string') return target;
  }
  return undefined;
}

/** Imports a plugin's module and returns its `kmPlugin` export. */
async function pluginExport(spec: string, file: string): Promise<unknown> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (cause) {
    throw new InvalidInputError(
      'invalid_argument',
      `plugin ${JSON.stringify(spec)} (${file}) failed to load: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  if (!(KM_PLUGIN_EXPORT in module)) {
    const names = Object.keys(module);
    throw new InvalidInputError(
      'invalid_argument',
      `plugin ${JSON.stringify(spec)} (${file}) has no "${KM_PLUGIN_EXPORT}" export (it exports ${names.length ? names.join(', ') : 'nothing'}); export const ${KM_PLUGIN_EXPORT}: KmPlugin = { memoryDbs: [...] }`,
    );
  }
  return module[KM_PLUGIN_EXPORT];
}
