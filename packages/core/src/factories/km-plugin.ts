import { InvalidInputError } from '../errors/km-error.js';
import type {
  ConnectorFactory,
  ContentStorageFactory,
  EmbeddingGeneratorFactory,
  MemoryDbFactory,
  QueueFactory,
  TextGeneratorFactory,
} from './connector-factory.js';

/**
 * What a connector package gives `km serve` and `km worker` (and any host that loads plugins):
 * its factories, by kind. A plugin module exports it as `kmPlugin`; the host loads the module
 * named by `--plugin`, `KM_PLUGINS` or the configuration file's `plugins`, checks its shape
 * with {@link checkKmPlugin}, and adds its factories to the built-in ones, so that their types
 * can be configured (`KM_MEMORY_DB=jsonfile`) and their settings read from the environment,
 * the configuration file and flags like any built-in connector's.
 *
 * ```ts
 * // my-connector/src/index.ts
 * import type { KmPlugin, MemoryDbFactory } from '@km/core/connector';
 * export const jsonFileMemoryDbFactory: MemoryDbFactory = {
 *   type: 'jsonfile',
 *   description: 'records in one JSON file',
 *   settings: [{ key: 'jsonFilePath', env: ['KM_JSONFILE_PATH'], flag: '--jsonfile-path', description: 'the file' }],
 *   create: async (s) => new (await import('./json-file-memory-db.js')).JsonFileMemoryDb(String(s.jsonFilePath)),
 * };
 * export const kmPlugin: KmPlugin = { memoryDbs: [jsonFileMemoryDbFactory] };
 * ```
 */
export interface KmPlugin {
  /** Memory DBs, chosen with `memoryDb.type` (KM_MEMORY_DB). */
  readonly memoryDbs?: readonly MemoryDbFactory[];
  /** Pipeline queues, chosen with `queue.type` (KM_QUEUE). */
  readonly queues?: readonly QueueFactory[];
  /** Content storages, chosen with `contentStorage.type` (KM_CONTENT_STORAGE). */
  readonly contentStorages?: readonly ContentStorageFactory[];
  /** Text generators, chosen with `textGenerator.type` (KM_TEXT_GENERATOR). */
  readonly textGenerators?: readonly TextGeneratorFactory[];
  /** Embedding generators, chosen with `embeddings.provider` (KM_EMBEDDING_GENERATOR). */
  readonly embeddingGenerators?: readonly EmbeddingGeneratorFactory[];
}

/** The kinds of factory a {@link KmPlugin} may hold, i.e. its keys. */
export const KM_PLUGIN_KINDS = ['memoryDbs', 'queues', 'contentStorages', 'textGenerators', 'embeddingGenerators'] as const;

/** One of {@link KM_PLUGIN_KINDS}. */
export type KmPluginKind = (typeof KM_PLUGIN_KINDS)[number];

/** The name of the export a plugin module must have. */
export const KM_PLUGIN_EXPORT = 'kmPlugin';

/** A factory type: letters, digits, `-` and `_` (commas separate several memory DB types). */
const TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * Checks that `value` (a plugin module's `kmPlugin` export) is a {@link KmPlugin}: an object
 * with only known keys, each a list of factories that have a `type`, a `settings` list and a
 * `create` function. Throws `invalid_argument` naming the plugin (`name`) and what is wrong.
 */
export function checkKmPlugin(value: unknown, name: string): KmPlugin {
  const fail = (message: string): never => {
    throw new InvalidInputError('invalid_argument', `plugin ${JSON.stringify(name)}: ${message}`);
  };
  if (!isObject(value))
    return fail(`its ${KM_PLUGIN_EXPORT} export must be an object such as { memoryDbs: [factory] }, got ${kindOf(value)}`);
  for (const key of Object.keys(value)) {
    if (!(KM_PLUGIN_KINDS as readonly string[]).includes(key))
      fail(`${KM_PLUGIN_EXPORT}.${key} is not a kind of connector; use ${KM_PLUGIN_KINDS.join(', ')}`);
  }
  for (const kind of KM_PLUGIN_KINDS) {
    const list = value[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`${KM_PLUGIN_EXPORT}.${kind} must be a list of factories, got ${kindOf(list)}`);
    (list as unknown[]).forEach((factory, i) => checkFactory(factory, `${KM_PLUGIN_EXPORT}.${kind}[${i}]`, fail));
  }
  return value as KmPlugin;
}

function checkFactory(factory: unknown, where: string, fail: (message: string) => never): void {
  if (!isObject(factory)) fail(`${where} must be a factory object ({ type, description, settings, create }), got ${kindOf(factory)}`);
  const f = factory as Record<string, unknown>;
  if (typeof f.type !== 'string' || !TYPE_PATTERN.test(f.type))
    fail(`${where}.type must be a name of letters, digits, "-" and "_", got ${JSON.stringify(f.type)}`);
  const named = `${where} (type "${String(f.type)}")`;
  if (typeof f.create !== 'function') fail(`${named} has no create function`);
  if (f.description !== undefined && typeof f.description !== 'string') fail(`${named}.description must be a string`);
  if (!Array.isArray(f.settings)) fail(`${named}.settings must be a list (possibly empty), got ${kindOf(f.settings)}`);
  (f.settings as unknown[]).forEach((setting, i) => {
    const s = isObject(setting) ? setting : fail(`${named}.settings[${i}] must be an object, got ${kindOf(setting)}`);
    if (typeof s.key !== 'string' || s.key === '') fail(`${named}.settings[${i}].key must be a non-empty string`);
    const label = `${named} setting ${JSON.stringify(s.key)}`;
    if (!Array.isArray(s.env) || !s.env.every((e) => typeof e === 'string' && e !== ''))
      fail(`${label}: env must be a list of environment variable names (possibly empty)`);
    if (s.flag !== undefined && (typeof s.flag !== 'string' || !/^--[a-z0-9][a-z0-9-]*$/.test(s.flag)))
      fail(`${label}: flag must look like --my-setting, got ${JSON.stringify(s.flag)}`);
    if (typeof s.description !== 'string') fail(`${label}: description must be a string`);
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const kindOf = (value: unknown): string => (Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value);

/** Every factory of a plugin, with its kind. */
export function pluginFactories(plugin: KmPlugin): Array<{ kind: KmPluginKind; factory: ConnectorFactory<unknown, never> }> {
  return KM_PLUGIN_KINDS.flatMap((kind) =>
    ((plugin[kind] ?? []) as readonly ConnectorFactory<unknown, never>[]).map((factory) => ({ kind, factory })),
  );
}
