import type { IContentStorage } from '../contracts/content-storage.js';
import type { IMemoryDb } from '../contracts/memory-db.js';
import type { IQueue } from '../contracts/queue.js';
import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import type { ITextGenerator } from '../contracts/text-generator.js';
import type { Logger } from '../util/logger.js';

/** One setting of a connector, read from the environment or from a configuration file's section. */
export interface ConnectorSetting {
  /** Its key in the configuration section, e.g. `qdrantUrl` under `memoryDb`. */
  key: string;
  /** Environment variables that set it; the first one set wins, e.g. `['KM_QDRANT_URL']`. */
  env: readonly string[];
  /** How the value is read and checked: a `url` must use one of `schemes`. @default 'string' */
  type?: 'string' | 'number' | 'url';
  /** Schemes a `url` may use. @default ['http:', 'https:'] */
  schemes?: readonly string[];
  /** The connector cannot work without it. @default false */
  required?: boolean;
  /** A `number`'s smallest value. */
  min?: number;
  /** Used when nothing sets it. */
  default?: string | number;
  /** Other settings that must be given with this one (a user name and its password). */
  with?: readonly string[];
  /** A command-line flag of `km serve` and `km worker`, e.g. `--qdrant-url`. */
  flag?: string;
  /** One line for `--help` and the docs. */
  description: string;
}

/** Settings read and checked against a factory's {@link ConnectorSetting}s, by key. */
export type ConnectorSettings = Readonly<Record<string, string | number | undefined>>;

/**
 * How a host (the service, `km worker`, your own) builds a connector from configuration: the
 * type users name, the settings it reads (each with its environment variable), and `create`,
 * which should import the connector's SDK lazily so that a host that lists many factories
 * loads only the one configured.
 *
 * ```ts
 * export const qdrantMemoryDbFactory: MemoryDbFactory = {
 *   type: 'qdrant',
 *   description: 'Qdrant (@qdrant/js-client-rest)',
 *   settings: [{ key: 'qdrantUrl', env: ['KM_QDRANT_URL'], type: 'url', required: true, flag: '--qdrant-url', description: 'Qdrant URL' }],
 *   create: async (s) => new (await import('./qdrant-memory-db.js')).QdrantMemoryDb({ url: String(s.qdrantUrl) }),
 * };
 * ```
 */
export interface ConnectorFactory<T, Context> {
  /** The name users configure, e.g. `qdrant` in `KM_MEMORY_DB=qdrant`. */
  readonly type: string;
  /** One line: what it is and the client it uses. */
  readonly description: string;
  readonly settings: readonly ConnectorSetting[];
  /** Builds the connector from checked settings. */
  create(settings: ConnectorSettings, context: Context): Promise<T>;
}

/** What a host gives every factory. */
export interface FactoryContext {
  logger: Logger;
}

/** Builds a memory DB from configuration. */
export type MemoryDbFactory = ConnectorFactory<IMemoryDb, FactoryContext>;

/** Builds the content storage (uploaded files, generated files, pipeline state) from configuration. */
export type ContentStorageFactory = ConnectorFactory<IContentStorage, FactoryContext>;

/** Builds a text generator (answers, summaries) from configuration, e.g. `KM_TEXT_GENERATOR=anthropic`. */
export type TextGeneratorFactory = ConnectorFactory<ITextGenerator, FactoryContext>;

/** Builds an embedding generator from configuration, e.g. `KM_EMBEDDING_GENERATOR=ollama`. */
export type EmbeddingGeneratorFactory = ConnectorFactory<ITextEmbeddingGenerator, FactoryContext>;

/** What queue factories get besides the logger: the settings every queue shares. */
export interface QueueFactoryContext extends FactoryContext {
  /** The host's data folder (a file-based queue keeps its messages under it). */
  dataDirectory: string;
  /** Prepended to queue names on a shared broker or account. */
  prefix: string;
  /** Deliveries of a message before it is poisoned. */
  maxAttempts: number;
  /** First retry delay, in ms. */
  retryDelayMs: number;
  /** Longest retry delay, in ms. @default the queue's own (60000) */
  maxRetryDelayMs?: number;
  /** How long a received message stays invisible to other consumers, in ms. */
  visibilityTimeoutMs: number;
  /** How often a polling queue looks for messages, in ms. */
  pollIntervalMs: number;
  /** Messages one client handles at once. */
  concurrency: number;
}

/** Builds the queue clients of a pipeline (one per step) from configuration. */
export type QueueFactory = ConnectorFactory<(step: string) => IQueue, QueueFactoryContext>;

/**
 * The settings that are set, under a connector's own option names (values as text):
 * `settingsAsOptions(s, { apiKey: 'qdrantApiKey' })` is `{ apiKey: s.qdrantApiKey }` when it is set, else `{}`.
 */
export function settingsAsOptions<Option extends string>(
  settings: ConnectorSettings,
  names: Record<Option, string>,
): Partial<Record<Option, string>> {
  const out: Partial<Record<Option, string>> = {};
  for (const [option, key] of Object.entries(names) as Array<[Option, string]>) {
    if (settings[key] !== undefined) out[option] = String(settings[key]);
  }
  return out;
}

/** The engine options every km queue takes, from a queue factory's context. */
export function queueConsumerOptions(context: QueueFactoryContext): {
  maxAttempts: number;
  retryDelayMs: number;
  maxRetryDelayMs?: number;
  concurrency: number;
  logger: Logger;
} {
  const { maxAttempts, retryDelayMs, maxRetryDelayMs, concurrency, logger } = context;
  return { maxAttempts, retryDelayMs, ...(maxRetryDelayMs !== undefined ? { maxRetryDelayMs } : {}), concurrency, logger };
}
