import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { DEFAULT_RETRY_BUDGET_MS, DEFAULT_STEP_ATTEMPTS, InvalidInputError, stepQueueMaxAttempts } from '@km/core';
import { readSettings, settingsFromEnv } from '@km/core/connector';
import {
  BUILT_IN_CONNECTORS,
  DISK_CONTENT_STORAGE,
  contentStorageFactoryOf,
  type Connectors,
  embeddingGeneratorFactoryOf,
  memoryDbFactory,
  queueFactoryOf,
  textGeneratorFactoryOf,
} from './connectors.js';
import { EMBEDDED_MEMORY_DB, memoryDbTypes } from './memory-db-types.js';
import { simpleVectorDbFactory, simpleVectorDbOptions } from './simple-vector-db-factory.js';
import { loadPlugins, pluginNames } from './plugins.js';
import { searchFromEnv, validateSearch, type SearchConfig } from './search-config.js';

/** Where memory records live: `simple` (embedded) or the type of a factory in `MEMORY_DB_FACTORIES` or a plugin. */
export type MemoryDbType = string;

/** Where the pipeline's queues live: the type of a factory in `QUEUE_FACTORIES` or a plugin. */
export type QueueType = string;

/** Where embeddings come from: a built-in provider or the type of a factory in `EMBEDDING_GENERATOR_FACTORIES` or a plugin (`ollama`). */
export type EmbeddingProvider = 'local' | 'hashing' | 'openai' | 'azure-openai' | (string & {});

/** The embedding providers the service configures itself (the others come from factories). */
const BUILT_IN_EMBEDDINGS = ['local', 'hashing', 'openai', 'azure-openai'] as const;

/**
 * Where answers come from: `openai`, `azure-openai` (also spelled `azureopenai`), the type of a
 * factory in `TEXT_GENERATOR_FACTORIES` or a plugin (`anthropic`, `ollama`), or `none` (extractive
 * answers, no LLM).
 */
export type TextGeneratorType = 'openai' | 'azure-openai' | 'none' | (string & {});

/** The text generator types the service configures itself (the others come from factories). */
const BUILT_IN_TEXT_GENERATORS = ['openai', 'azure-openai', 'none'] as const;

/** `azureopenai` (as Kernel Memory spells its AzureOpenAI service) is `azure-openai`; names are case-insensitive. */
const providerName = (name: string): string => (name.toLowerCase() === 'azureopenai' ? 'azure-openai' : name.toLowerCase());

/** How the service authenticates to Azure OpenAI: an API key, or a Microsoft Entra identity (needs `@azure/identity`). */
export type AzureOpenAIAuth = 'key' | 'entra';

/** Settings of the service; every field has an embedded default (see {@link DEFAULT_CONFIG}). */
export interface ServiceConfig {
  /** Interface to listen on. @default '127.0.0.1' (env KM_HOST) */
  host: string;
  /** TCP port; 0 picks a free one. @default 9001 (env KM_PORT) */
  port: number;
  /** Files, vectors and queues live under this folder. @default './km-data' (env KM_DATA_DIR) */
  dataDirectory: string;
  /** Run the pipeline steps in this process; false makes an API that only queues work for `km worker`s. @default true (env KM_RUN_HANDLERS) */
  runHandlers: boolean;
  /** Largest upload request, all files together. @default 100 MiB (env KM_MAX_UPLOAD_BYTES) */
  maxUploadBytes: number;
  /** Time given to steps in progress when the service stops. @default 10000 (env KM_SHUTDOWN_TIMEOUT_MS) */
  shutdownTimeoutMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Connector packages to load (see `loadPlugins`): package names, found in `node_modules` from
   * the working directory up, or paths starting with `.` or `/`, relative to the working
   * directory. Each exports `kmPlugin` (a `KmPlugin` of `@km/core/connector`); its factories'
   * types can then be configured like the built-in ones. The file's list, `KM_PLUGINS`
   * (comma-separated) and `--plugin` flags add up. @default [] (env KM_PLUGINS)
   */
  plugins: string[];
  auth: {
    /** Requests must carry one of `keys` in `header`. On when a key is set. (env KM_AUTH_ENABLED) */
    enabled: boolean;
    /** @default 'Authorization' (env KM_AUTH_HEADER) */
    header: string;
    /** Up to two keys, so one can be rotated while the other works. (env KM_ACCESS_KEY1, KM_ACCESS_KEY2) */
    keys: string[];
  };
  /**
   * Host names the service answers besides the loopback names (localhost, *.localhost,
   * 127.0.0.1, [::1]), IP addresses and its bind address: the names clients reach it by when it
   * listens on another interface (`km.example.com`, `km` in a compose network), `*` for any.
   * Other `Host`s get 403 (DNS rebinding). @default [] (env KM_ALLOWED_HOSTS, comma-separated)
   */
  allowedHosts: string[];
  /**
   * Browser origins (`https://app.example.com`) that may call the API besides the service's own
   * (its web console), `*` for any; they get CORS headers. A `POST`, `PUT`, `PATCH` or `DELETE`
   * from another origin gets 403; requests without `Origin` (non-browser clients) are not
   * affected. @default [] (env KM_ALLOWED_ORIGINS, comma-separated)
   */
  allowedOrigins: string[];
  queue: {
    /**
     * `file` (a folder, one machine), `memory` (one process), `rabbitmq` or `azure` (many
     * machines): see `QUEUE_FACTORIES` or a plugin. The chosen queue's own settings live in this
     * section too, each with its environment variable: `rabbitmqUrl` (KM_RABBITMQ_URL, default
     * amqp://guest:guest@127.0.0.1:5672), `azureConnectionString` (KM_AZURE_QUEUE_CONNECTION_STRING
     * or AZURE_STORAGE_CONNECTION_STRING). @default 'file' (env KM_QUEUE)
     */
    type: QueueType;
    /** Prepended to queue names on a shared broker or storage account. @default '' (env KM_QUEUE_PREFIX) */
    prefix: string;
    /**
     * Deliveries of a message before its queue poisons it: a safety net that comes after the
     * orchestrator's decision. Derived from `maxStepAttempts`, `retryBudgetMs` and the retry
     * delays (core's `stepQueueMaxAttempts`: enough deliveries for the backoff to span twice the
     * budget) unless given; a value given must be greater than `maxStepAttempts`. @default derived (50 with the defaults)
     */
    maxAttempts: number;
    /**
     * Deliveries of a step that end with no answer (the worker running it died) before the
     * document fails. @default 3 (env KM_MAX_STEP_ATTEMPTS)
     */
    maxStepAttempts: number;
    /**
     * How long a step that keeps failing transiently (a database, broker or model endpoint down,
     * throttled, timing out) is retried, with capped exponential backoff and jitter, before its
     * document fails with the reason (`km redrive` runs it again). @default 600000, 10 minutes (env KM_RETRY_BUDGET_MS)
     */
    retryBudgetMs: number;
    /** Ceiling of the first retry's delay, doubled each time. @default 1000 */
    retryDelayMs: number;
    /** Longest retry delay. @default 60000 */
    maxRetryDelayMs: number;
    /** @default 60000 */
    visibilityTimeoutMs: number;
    /** @default 250 */
    pollIntervalMs: number;
    /** Messages of one step handled at once by one process. @default 2 (env KM_QUEUE_CONCURRENCY) */
    concurrency: number;
    /** The chosen queue's settings (see `type`). */
    [setting: string]: string | number | undefined;
  };
  /**
   * Where memory records live. `type` is `simple` (the embedded SimpleVectorDb: one writing
   * process), or a server every worker shares: `postgres`, `qdrant`, `elasticsearch`, `redis`,
   * `mongodb`, `azureaisearch` (see `MEMORY_DB_FACTORIES` or a plugin); or several separated by commas
   * (`postgres,qdrant`): records are written to all, searches read the first. The other keys are
   * the settings the chosen connectors' factories declare, each with its environment variable
   * (e.g. `postgresUrl`, KM_POSTGRES_URL).
   * @default { type: 'simple' } (env KM_MEMORY_DB)
   */
  memoryDb: { type: MemoryDbType; [setting: string]: string | number | undefined };
  /**
   * Where uploaded files, generated files and pipeline state live. `disk` (the data folder:
   * every process must see the same folder), or a store every machine shares: `azureblobs`,
   * `s3`, `postgres` (see `CONTENT_STORAGE_FACTORIES` or a plugin); the other keys are the chosen
   * factory's settings, each with its environment variable.
   * @default { type: 'disk' } (env KM_CONTENT_STORAGE)
   */
  contentStorage: { type: string; [setting: string]: string | number | undefined };
  embeddings: {
    /**
     * `local`, `hashing`, `openai`, `azure-openai` or a factory's type (`ollama`, whose settings
     * are the other keys of this section, each with its environment variable).
     * @default 'local', or 'azure-openai' / 'openai' when their embedding settings are set (env KM_EMBEDDING_GENERATOR or KM_EMBEDDINGS)
     */
    provider: EmbeddingProvider;
    [setting: string]: string | number | undefined;
  };
  /**
   * Where answers come from (see {@link TextGeneratorType}); the other keys are the chosen
   * factory's settings (`anthropicApiKey`, `ollamaTextModel`, ...), each with its environment variable.
   * Unset: Azure OpenAI when a chat deployment is set, else OpenAI when its key or base URL is
   * set, else none (extractive answers).
   * @default {} (env KM_TEXT_GENERATOR)
   */
  textGenerator: { type?: TextGeneratorType; [setting: string]: string | number | undefined };
  openai: {
    /** (env KM_OPENAI_API_KEY or OPENAI_API_KEY) */
    apiKey?: string;
    /** An OpenAI-compatible server, e.g. Ollama's `http://127.0.0.1:11434/v1`. (env KM_OPENAI_BASE_URL) */
    baseUrl?: string;
    /** @default 'text-embedding-3-small' (env KM_OPENAI_EMBEDDING_MODEL) */
    embeddingModel: string;
    /** @default 'gpt-4o-mini' (env KM_OPENAI_TEXT_MODEL) */
    textModel: string;
  };
  /** Azure OpenAI: answers from the chat deployment, embeddings from the embedding deployment. */
  azureOpenai: {
    /** e.g. `https://my-resource.openai.azure.com/` (env KM_AZURE_OPENAI_ENDPOINT) */
    endpoint?: string;
    /** `key` or `entra` (DefaultAzureCredential from `@azure/identity`). @default 'key' (env KM_AZURE_OPENAI_AUTH) */
    auth: AzureOpenAIAuth;
    /** (env KM_AZURE_OPENAI_API_KEY) */
    apiKey?: string;
    /** @default '2024-10-21' (env KM_AZURE_OPENAI_API_VERSION) */
    apiVersion: string;
    /** Deployment that answers questions; set it to use Azure OpenAI for answers. (env KM_AZURE_OPENAI_CHAT_DEPLOYMENT) */
    chatDeployment?: string;
    /** Deployment that embeds; set it to use Azure OpenAI for embeddings. (env KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT) */
    embeddingDeployment?: string;
    /** The models behind the deployments, for their limits and tokenizers; default to the deployment names. (env KM_AZURE_OPENAI_CHAT_MODEL, KM_AZURE_OPENAI_EMBEDDING_MODEL) */
    chatModel?: string;
    embeddingModel?: string;
  };
  /** How search and ask retrieve (`mode`) and rerank when a request does not say: see {@link SearchConfig}. */
  search: SearchConfig;
  /** Serve `/docs` (Swagger UI) and `/openapi.json`. @default true */
  docs: boolean;
  /** The MCP endpoint (`POST /mcp`, Streamable HTTP), behind the access keys like every route. */
  mcp: {
    /** Serve `/mcp`. @default true (env KM_MCP) */
    enabled: boolean;
    /** Offer only the tools that read (search, ask, list_indexes, list_documents, get_document_status). @default false (env KM_MCP_READ_ONLY) */
    readOnly: boolean;
  };
  /**
   * Folders a `POST /sync` of type `folder` may read, on the service's disk: a sync of a folder
   * resolves its real path (symbolic links followed) and must land inside one of them. Empty:
   * folder syncs are refused (403). @default [] (env KM_SYNC_ROOTS, separated by the platform's
   * path delimiter: `:` on Linux and macOS, `;` on Windows)
   */
  syncRoots: string[];
  /** What web imports (`importWebPage`, `content.url` uploads) and web syncs may fetch. */
  web: {
    /**
     * Let them reach loopback, private, link-local and metadata addresses (an intranet wiki, a
     * test server). Off: a URL given by a client must not become a way into your network (SSRF).
     * @default false (env KM_WEB_ALLOW_PRIVATE_NETWORKS)
     */
    allowPrivateNetworks: boolean;
  };
  /** Limits that keep idle or slow clients from holding every connection (and file descriptor). */
  http: {
    /**
     * A socket with no activity for this long is closed; 0 = never. Not applied while a
     * request is handled (a long answer is not cut). @default 120000 (env KM_HTTP_CONNECTION_TIMEOUT_MS)
     */
    connectionTimeoutMs: number;
    /**
     * A kept-alive socket waiting for its next request is closed after this. Keep it above the
     * idle timeout of a load balancer in front (ALB and nginx: 60 s), or it may reuse a socket
     * km is closing (intermittent 502s). @default 72000 (env KM_HTTP_KEEP_ALIVE_TIMEOUT_MS)
     */
    keepAliveTimeoutMs: number;
    /** A request's headers must arrive within this (slowloris). @default 15000 (env KM_HTTP_HEADERS_TIMEOUT_MS) */
    headersTimeoutMs: number;
    /**
     * A whole request (headers and body, e.g. an upload) must arrive within this; 0 = no
     * limit (slow uploads are bounded by `minUploadBytesPerSecond`). @default 0 (env KM_HTTP_REQUEST_TIMEOUT_MS)
     */
    requestTimeoutMs: number;
    /**
     * An upload body must arrive at this rate at least, measured over every
     * `minUploadRateGraceMs` window once that long has passed, or it gets 408 and the connection
     * is closed (as Kestrel's MinRequestBodyDataRate); 0 = no minimum.
     * @default 240 (env KM_HTTP_MIN_UPLOAD_BYTES_PER_SECOND)
     */
    minUploadBytesPerSecond: number;
    /** The window of `minUploadBytesPerSecond`. @default 5000 (env KM_HTTP_MIN_UPLOAD_RATE_GRACE_MS) */
    minUploadRateGraceMs: number;
    /**
     * Connections open at once; past it the oldest connection with no request in progress is
     * closed (a new one is refused only when all are serving a request). 0 = half the process's
     * open-files limit (read from /proc/self/limits; 1024 where it cannot be read), 32 to 16384.
     * @default 0 (env KM_HTTP_MAX_CONNECTIONS)
     */
    maxConnections: number;
  };
}

/** The embedded defaults: no key, no network, everything under `./km-data`. */
export const DEFAULT_CONFIG: ServiceConfig = {
  host: '127.0.0.1',
  port: 9001,
  dataDirectory: './km-data',
  runHandlers: true,
  maxUploadBytes: 100 * 1024 * 1024,
  shutdownTimeoutMs: 10_000,
  logLevel: 'info',
  plugins: [],
  auth: { enabled: false, header: 'Authorization', keys: [] },
  allowedHosts: [],
  allowedOrigins: [],
  queue: {
    type: 'file',
    prefix: '',
    maxAttempts: stepQueueMaxAttempts(DEFAULT_STEP_ATTEMPTS, DEFAULT_RETRY_BUDGET_MS),
    maxStepAttempts: DEFAULT_STEP_ATTEMPTS,
    retryBudgetMs: DEFAULT_RETRY_BUDGET_MS,
    retryDelayMs: 1000,
    maxRetryDelayMs: 60_000,
    visibilityTimeoutMs: 60_000,
    pollIntervalMs: 250,
    concurrency: 2,
  },
  memoryDb: { type: 'simple' },
  contentStorage: { type: 'disk' },
  embeddings: { provider: 'local' },
  textGenerator: {},
  openai: { embeddingModel: 'text-embedding-3-small', textModel: 'gpt-4o-mini' },
  azureOpenai: { auth: 'key', apiVersion: '2024-10-21' },
  search: { reranker: 'none' },
  docs: true,
  mcp: { enabled: true, readOnly: false },
  syncRoots: [],
  web: { allowPrivateNetworks: false },
  http: {
    connectionTimeoutMs: 120_000,
    keepAliveTimeoutMs: 72_000,
    headersTimeoutMs: 15_000,
    requestTimeoutMs: 0,
    minUploadBytesPerSecond: 240,
    minUploadRateGraceMs: 5000,
    maxConnections: 0,
  },
};

/** Shortest access key accepted. */
export const MIN_ACCESS_KEY_LENGTH = 32;

/** A partial configuration, as found in a JSON file or given by code. */
export type ServiceConfigInput = {
  [K in keyof ServiceConfig]?: ServiceConfig[K] extends object ? Partial<ServiceConfig[K]> : ServiceConfig[K];
};

/** The numeric `http.*` settings and the environment variable of each. */
const HTTP_ENV = {
  connectionTimeoutMs: 'KM_HTTP_CONNECTION_TIMEOUT_MS',
  keepAliveTimeoutMs: 'KM_HTTP_KEEP_ALIVE_TIMEOUT_MS',
  headersTimeoutMs: 'KM_HTTP_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'KM_HTTP_REQUEST_TIMEOUT_MS',
  minUploadBytesPerSecond: 'KM_HTTP_MIN_UPLOAD_BYTES_PER_SECOND',
  minUploadRateGraceMs: 'KM_HTTP_MIN_UPLOAD_RATE_GRACE_MS',
  maxConnections: 'KM_HTTP_MAX_CONNECTIONS',
} as const satisfies Record<keyof ServiceConfig['http'], string>;

const httpSettings = () => Object.entries(HTTP_ENV) as Array<[keyof typeof HTTP_ENV, string]>;

/**
 * Reads the configuration: defaults, then the JSON file named by `KM_CONFIG` (or `file`),
 * then environment variables, then `overrides` (command-line flags). Throws a typed error
 * naming the bad setting.
 */
export function loadConfig(options: LoadConfigOptions = {}): ServiceConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? env.KM_CONFIG;
  const fromFile = file ? readConfigFile(file) : {};
  const connectors = options.connectors ?? BUILT_IN_CONNECTORS;
  const merged = merge(
    merge(merge(DEFAULT_CONFIG, fromFile), fromEnv(env, { ...fromFile, ...options.overrides }, connectors)),
    options.overrides ?? {},
  );
  merged.plugins = pluginNames(fromFile.plugins, env.KM_PLUGINS, options.overrides?.plugins);
  // The queues' delivery cap follows the step attempts, the retry budget and the delays unless it was given.
  if ((options.overrides?.queue?.maxAttempts ?? fromFile.queue?.maxAttempts) === undefined) {
    const { maxStepAttempts, retryBudgetMs, retryDelayMs, maxRetryDelayMs } = merged.queue;
    const delays = { initialDelayMs: retryDelayMs, maxDelayMs: Math.max(retryDelayMs, maxRetryDelayMs) };
    const derived =
      Number.isFinite(retryBudgetMs) && retryBudgetMs >= 0 && retryDelayMs >= 0
        ? stepQueueMaxAttempts(maxStepAttempts, retryBudgetMs, delays)
        : 5;
    merged.queue = { ...merged.queue, maxAttempts: derived };
  }
  return validate(merged, connectors);
}

/** Options of {@link loadConfig} and {@link loadServiceConfig}. */
export interface LoadConfigOptions {
  /** A JSON configuration file. @default env KM_CONFIG */
  file?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Command-line flags: they win over the file and the environment. */
  overrides?: ServiceConfigInput;
  /**
   * The connectors whose types and settings are known: the built-in ones and those of the
   * plugins loaded. {@link loadConfig} does not load plugins itself; {@link loadServiceConfig} does.
   * @default BUILT_IN_CONNECTORS
   */
  connectors?: Connectors;
}

/**
 * The plugins a configuration names, without reading the rest: the file's `plugins`, then
 * `KM_PLUGINS`, then `overrides.plugins` (flags), each once. For hosts that must know the
 * plugins' factories before they parse their own flags.
 */
export function configuredPlugins(options: Omit<LoadConfigOptions, 'connectors'> = {}): string[] {
  const env = options.env ?? process.env;
  const file = options.file ?? env.KM_CONFIG;
  const fromFile = file ? readConfigFile(file) : {};
  return pluginNames(fromFile.plugins, env.KM_PLUGINS, options.overrides?.plugins);
}

/**
 * Loads the plugins the configuration names (file `plugins`, `KM_PLUGINS`, `overrides.plugins`),
 * unless `connectors` are given, then the configuration with their factories known.
 */
export async function loadServiceConfig(
  options: LoadConfigOptions & { cwd?: string } = {},
): Promise<{ config: ServiceConfig; connectors: Connectors }> {
  const connectors = options.connectors ?? (await loadPlugins(configuredPlugins(options), options.cwd ? { cwd: options.cwd } : {}));
  return { config: loadConfig({ ...options, connectors }), connectors };
}

function readConfigFile(path: string): ServiceConfigInput {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new InvalidInputError('invalid_argument', `cannot read the configuration file ${JSON.stringify(path)}`, { cause });
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as ServiceConfigInput;
  } catch (cause) {
    throw new InvalidInputError('invalid_argument', `the configuration file ${JSON.stringify(path)} is not a JSON object`, { cause });
  }
}

function fromEnv(env: NodeJS.ProcessEnv, configured: ServiceConfigInput, connectors: Connectors): ServiceConfigInput {
  const out: ServiceConfigInput = {};
  const num = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n)) throw new InvalidInputError('invalid_argument', `${name} must be a number, got ${JSON.stringify(raw)}`);
    return n;
  };
  const bool = (name: string): boolean | undefined => {
    const raw = env[name]?.toLowerCase();
    if (raw === undefined || raw === '') return undefined;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    throw new InvalidInputError('invalid_argument', `${name} must be true or false, got ${JSON.stringify(env[name])}`);
  };
  const str = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const set = <K extends keyof ServiceConfig>(key: K, value: ServiceConfigInput[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('host', str('KM_HOST'));
  set('port', num('KM_PORT'));
  set('dataDirectory', str('KM_DATA_DIR'));
  set('runHandlers', bool('KM_RUN_HANDLERS'));
  set('maxUploadBytes', num('KM_MAX_UPLOAD_BYTES'));
  set('shutdownTimeoutMs', num('KM_SHUTDOWN_TIMEOUT_MS'));
  set('logLevel', str('KM_LOG_LEVEL') as ServiceConfig['logLevel'] | undefined);
  set('docs', bool('KM_DOCS'));
  const mcp: Partial<ServiceConfig['mcp']> = {};
  if (bool('KM_MCP') !== undefined) mcp.enabled = bool('KM_MCP')!;
  if (bool('KM_MCP_READ_ONLY') !== undefined) mcp.readOnly = bool('KM_MCP_READ_ONLY')!;
  if (Object.keys(mcp).length) out.mcp = mcp;

  // In place, so that a message can name the variable of a key: ['', key2] when only the second is set.
  const keys = str('KM_ACCESS_KEY2')
    ? [str('KM_ACCESS_KEY1') ?? '', str('KM_ACCESS_KEY2')!]
    : str('KM_ACCESS_KEY1')
      ? [str('KM_ACCESS_KEY1')!]
      : [];
  const auth: Partial<ServiceConfig['auth']> = {};
  if (keys.length > 0) {
    auth.keys = keys;
    auth.enabled = true;
  }
  const authEnabled = bool('KM_AUTH_ENABLED');
  if (authEnabled !== undefined) auth.enabled = authEnabled;
  if (str('KM_AUTH_HEADER')) auth.header = str('KM_AUTH_HEADER')!;
  if (Object.keys(auth).length) out.auth = auth;
  const list = (name: string): string[] | undefined =>
    str(name)
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  set('allowedHosts', list('KM_ALLOWED_HOSTS'));
  set('allowedOrigins', list('KM_ALLOWED_ORIGINS'));
  set(
    'syncRoots',
    str('KM_SYNC_ROOTS')
      ?.split(delimiter)
      .map((item) => item.trim())
      .filter(Boolean),
  );
  if (bool('KM_WEB_ALLOW_PRIVATE_NETWORKS') !== undefined) out.web = { allowPrivateNetworks: bool('KM_WEB_ALLOW_PRIVATE_NETWORKS')! };

  const queue: Partial<ServiceConfig['queue']> = settingsFromEnv(connectors.queues, env);
  if (str('KM_QUEUE')) queue.type = str('KM_QUEUE') as ServiceConfig['queue']['type'];
  if (num('KM_MAX_STEP_ATTEMPTS') !== undefined) queue.maxStepAttempts = num('KM_MAX_STEP_ATTEMPTS')!;
  if (num('KM_RETRY_BUDGET_MS') !== undefined) queue.retryBudgetMs = num('KM_RETRY_BUDGET_MS')!;
  if (num('KM_QUEUE_CONCURRENCY') !== undefined) queue.concurrency = num('KM_QUEUE_CONCURRENCY')!;
  if (str('KM_QUEUE_PREFIX')) queue.prefix = str('KM_QUEUE_PREFIX')!;
  if (Object.keys(queue).length) out.queue = queue;

  const contentStorage: Partial<ServiceConfig['contentStorage']> = settingsFromEnv(connectors.contentStorages, env);
  if (str('KM_CONTENT_STORAGE')) contentStorage.type = str('KM_CONTENT_STORAGE')!;
  if (Object.keys(contentStorage).length) out.contentStorage = contentStorage;

  const memoryDb: Partial<ServiceConfig['memoryDb']> = settingsFromEnv([...connectors.memoryDbs, simpleVectorDbFactory], env);
  if (str('KM_MEMORY_DB')) memoryDb.type = str('KM_MEMORY_DB')!;
  if (Object.keys(memoryDb).length) out.memoryDb = memoryDb;

  const openai: Partial<ServiceConfig['openai']> = {};
  const apiKey = str('KM_OPENAI_API_KEY') ?? str('OPENAI_API_KEY');
  if (apiKey) openai.apiKey = apiKey;
  if (str('KM_OPENAI_BASE_URL')) openai.baseUrl = str('KM_OPENAI_BASE_URL')!;
  if (str('KM_OPENAI_EMBEDDING_MODEL')) openai.embeddingModel = str('KM_OPENAI_EMBEDDING_MODEL')!;
  if (str('KM_OPENAI_TEXT_MODEL')) openai.textModel = str('KM_OPENAI_TEXT_MODEL')!;
  if (Object.keys(openai).length) out.openai = openai;

  const search = searchFromEnv(env);
  if (Object.keys(search).length) out.search = search;

  const http: Partial<ServiceConfig['http']> = {};
  for (const [key, name] of httpSettings()) {
    const value = num(name);
    if (value !== undefined) http[key] = value;
  }
  if (Object.keys(http).length) out.http = http;

  const azureOpenai: Partial<ServiceConfig['azureOpenai']> = {};
  const azureStrings = {
    endpoint: 'KM_AZURE_OPENAI_ENDPOINT',
    apiKey: 'KM_AZURE_OPENAI_API_KEY',
    apiVersion: 'KM_AZURE_OPENAI_API_VERSION',
    chatDeployment: 'KM_AZURE_OPENAI_CHAT_DEPLOYMENT',
    embeddingDeployment: 'KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT',
    chatModel: 'KM_AZURE_OPENAI_CHAT_MODEL',
    embeddingModel: 'KM_AZURE_OPENAI_EMBEDDING_MODEL',
  } as const;
  for (const [key, name] of Object.entries(azureStrings) as Array<[keyof typeof azureStrings, string]>) {
    if (str(name) !== undefined) azureOpenai[key] = str(name)!;
  }
  if (str('KM_AZURE_OPENAI_AUTH')) azureOpenai.auth = str('KM_AZURE_OPENAI_AUTH')!.toLowerCase() as AzureOpenAIAuth;
  if (Object.keys(azureOpenai).length) out.azureOpenai = azureOpenai;

  const textGenerator: Partial<ServiceConfig['textGenerator']> = settingsFromEnv(connectors.textGenerators, env);
  if (str('KM_TEXT_GENERATOR')) textGenerator.type = providerName(str('KM_TEXT_GENERATOR')!);
  if (Object.keys(textGenerator).length) out.textGenerator = textGenerator;

  const embeddingSettings = settingsFromEnv(connectors.embeddingGenerators, env);
  const named = str('KM_EMBEDDING_GENERATOR') ?? str('KM_EMBEDDINGS');
  const provider = named === undefined ? undefined : providerName(named);
  const openaiConfigured = Boolean(openai.apiKey ?? openai.baseUrl ?? configured.openai?.apiKey ?? configured.openai?.baseUrl);
  const azureEmbeddings = Boolean(azureOpenai.embeddingDeployment ?? configured.azureOpenai?.embeddingDeployment);
  if (provider) out.embeddings = { ...embeddingSettings, provider };
  else if (azureEmbeddings && !configured.embeddings?.provider) out.embeddings = { ...embeddingSettings, provider: 'azure-openai' };
  else if (openaiConfigured && !configured.embeddings?.provider) out.embeddings = { ...embeddingSettings, provider: 'openai' };
  else if (Object.keys(embeddingSettings).length) out.embeddings = embeddingSettings;
  return out;
}

function merge(base: ServiceConfig, input: ServiceConfigInput): ServiceConfig {
  const out = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] =
      current && typeof current === 'object' && !Array.isArray(current) && value && typeof value === 'object' && !Array.isArray(value)
        ? { ...current, ...value }
        : value;
  }
  return out as unknown as ServiceConfig;
}

function validate(config: ServiceConfig, connectors: Connectors): ServiceConfig {
  const fail = (message: string): never => {
    throw new InvalidInputError('invalid_argument', `configuration: ${message}`);
  };
  if (typeof config.host !== 'string' || !config.host) fail('host must be a non-empty string');
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) fail(`port must be 0-65535, got ${config.port}`);
  if (typeof config.dataDirectory !== 'string' || !config.dataDirectory) fail('dataDirectory must be a non-empty string');
  if (!(config.maxUploadBytes > 0)) fail('maxUploadBytes must be positive');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel))
    fail(`logLevel ${JSON.stringify(config.logLevel)} is unknown`);
  if (!Array.isArray(config.plugins) || !config.plugins.every((p) => typeof p === 'string'))
    fail(`plugins (KM_PLUGINS) must be a list of package names or paths, got ${JSON.stringify(config.plugins)}`);
  validateQueue(config, connectors, fail);
  validateMemoryDb(config, connectors, fail);
  validateContentStorage(config, connectors, fail);
  for (const key of ['maxAttempts', 'maxStepAttempts', 'concurrency'] as const) {
    if (!Number.isInteger(config.queue[key]) || config.queue[key] < 1) fail(`queue.${key} must be a positive integer`);
  }
  if (config.queue.type === 'memory' && !config.runHandlers) {
    fail('runHandlers is false but the queue is "memory": no other process could run the pipeline; use the "file" queue');
  }
  for (const key of ['retryBudgetMs', 'retryDelayMs', 'maxRetryDelayMs'] as const) {
    if (typeof config.queue[key] !== 'number' || !Number.isFinite(config.queue[key]) || config.queue[key] < 0)
      fail(`queue.${key} must be a number of ms >= 0`);
  }
  if (config.queue.maxAttempts <= config.queue.maxStepAttempts) {
    fail(
      'queue.maxAttempts must be greater than queue.maxStepAttempts, so that a document is marked failed before its message is poisoned',
    );
  }
  validateEmbeddings(config, connectors, fail);
  validateTextGenerator(config, connectors, fail);
  validateAzureOpenAI(config, fail);
  validateSearch(config.search, fail);
  if (config.embeddings.provider === 'openai' && !config.openai.apiKey && !config.openai.baseUrl) {
    fail('embeddings.provider is openai but neither openai.apiKey (KM_OPENAI_API_KEY) nor openai.baseUrl (KM_OPENAI_BASE_URL) is set');
  }
  if (config.textGenerator.type === 'openai' && !config.openai.apiKey && !config.openai.baseUrl) {
    fail('textGenerator.type is openai but neither openai.apiKey (KM_OPENAI_API_KEY) nor openai.baseUrl (KM_OPENAI_BASE_URL) is set');
  }
  for (const [key, name] of httpSettings()) {
    const value = config.http[key];
    if (!Number.isInteger(value) || value < 0) fail(`http.${key} (${name}) must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  if (config.http.headersTimeoutMs < 1) fail('http.headersTimeoutMs (KM_HTTP_HEADERS_TIMEOUT_MS) must be positive');
  if (config.http.minUploadRateGraceMs < 1) fail('http.minUploadRateGraceMs (KM_HTTP_MIN_UPLOAD_RATE_GRACE_MS) must be positive');
  if (config.http.requestTimeoutMs > 0 && config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    fail('http.headersTimeoutMs (KM_HTTP_HEADERS_TIMEOUT_MS) must not exceed http.requestTimeoutMs (KM_HTTP_REQUEST_TIMEOUT_MS)');
  }
  for (const key of ['enabled', 'readOnly'] as const) {
    if (typeof config.mcp[key] !== 'boolean') fail(`mcp.${key} must be true or false, got ${JSON.stringify(config.mcp[key])}`);
  }
  if (!/^[A-Za-z0-9-]+$/.test(config.auth.header)) fail(`auth.header ${JSON.stringify(config.auth.header)} is not a valid header name`);
  if (!Array.isArray(config.auth.keys) || config.auth.keys.length > 2) fail('auth.keys holds at most two keys');
  if (config.auth.enabled) {
    const keys = config.auth.keys.filter((k) => typeof k === 'string' && k.length > 0);
    if (keys.length === 0) fail('auth is enabled but no access key is set (KM_ACCESS_KEY1)');
    config.auth.keys.forEach((key, i) => {
      if (typeof key === 'string' && key.length > 0 && key.length < MIN_ACCESS_KEY_LENGTH)
        fail(`auth.keys[${i}] (KM_ACCESS_KEY${i + 1}) must be at least ${MIN_ACCESS_KEY_LENGTH} characters, got ${key.length}`);
    });
  }
  for (const key of ['allowedHosts', 'allowedOrigins'] as const) {
    const env = key === 'allowedHosts' ? 'KM_ALLOWED_HOSTS' : 'KM_ALLOWED_ORIGINS';
    if (!Array.isArray(config[key]) || !config[key].every((item) => typeof item === 'string'))
      fail(`${key} (${env}) must be a list of strings, got ${JSON.stringify(config[key])}`);
  }
  if (!Array.isArray(config.syncRoots) || !config.syncRoots.every((root) => typeof root === 'string' && root !== ''))
    fail(`syncRoots (KM_SYNC_ROOTS) must be a list of folders, got ${JSON.stringify(config.syncRoots)}`);
  if (typeof config.web.allowPrivateNetworks !== 'boolean')
    fail(
      `web.allowPrivateNetworks (KM_WEB_ALLOW_PRIVATE_NETWORKS) must be true or false, got ${JSON.stringify(config.web.allowPrivateNetworks)}`,
    );
  for (const origin of config.allowedOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/?#]+\/?$/i.test(origin))
      fail(`allowedOrigins (KM_ALLOWED_ORIGINS): ${JSON.stringify(origin)} is not an origin such as https://app.example.com, nor *`);
  }
  return config;
}

/** The embedding provider is known; a factory's settings are present and well-formed (stored back checked). */
function validateEmbeddings(config: ServiceConfig, connectors: Connectors, fail: (message: string) => never): void {
  const provider = providerName(String(config.embeddings.provider ?? ''));
  config.embeddings.provider = provider;
  if ((BUILT_IN_EMBEDDINGS as readonly string[]).includes(provider)) return;
  const factory = embeddingGeneratorFactoryOf(provider, connectors);
  if (!factory) {
    const types = [...BUILT_IN_EMBEDDINGS, ...connectors.embeddingGenerators.map((f) => f.type)].map((t) => `"${t}"`).join(', ');
    fail(`embeddings.provider (KM_EMBEDDING_GENERATOR) must be one of ${types}, got ${JSON.stringify(provider)}`);
  }
  Object.assign(
    config.embeddings,
    readSettings(factory!, { env: {}, section: config.embeddings, sectionName: 'embeddings', typeKey: 'provider' }),
  );
}

/** The text generator type, when given, is known; a factory's settings are present and well-formed (stored back checked). */
function validateTextGenerator(config: ServiceConfig, connectors: Connectors, fail: (message: string) => never): void {
  if (config.textGenerator.type === undefined) return;
  const type = providerName(String(config.textGenerator.type));
  config.textGenerator.type = type;
  if ((BUILT_IN_TEXT_GENERATORS as readonly string[]).includes(type)) return;
  const factory = textGeneratorFactoryOf(type, connectors);
  if (!factory) {
    const types = [...BUILT_IN_TEXT_GENERATORS, ...connectors.textGenerators.map((f) => f.type)].map((t) => `"${t}"`).join(', ');
    fail(`textGenerator.type (KM_TEXT_GENERATOR) must be one of ${types}, got ${JSON.stringify(type)}`);
  }
  Object.assign(config.textGenerator, readSettings(factory!, { env: {}, section: config.textGenerator, sectionName: 'textGenerator' }));
}

/** The queue type is known, and its factory's settings are present and well-formed (stored back checked). */
function validateQueue(config: ServiceConfig, connectors: Connectors, fail: (message: string) => never): void {
  const factory = queueFactoryOf(config.queue.type, connectors);
  if (!factory) {
    const types = connectors.queues.map((f) => `"${f.type}"`).join(', ');
    fail(`queue.type must be one of ${types}, got ${JSON.stringify(config.queue.type)}`);
  }
  Object.assign(config.queue, readSettings(factory, { env: {}, section: config.queue, sectionName: 'queue' }));
}

/**
 * The memory DB type (or comma-separated types) is known, and each chosen factory's settings are
 * present and well-formed (stored back checked).
 */
function validateMemoryDb(config: ServiceConfig, connectors: Connectors, fail: (message: string) => never): void {
  const chosen = memoryDbTypes(config.memoryDb.type, connectors);
  if ('error' in chosen) fail(chosen.error);
  config.memoryDb.type = chosen.types.join(',');
  const given = { ...config.memoryDb };
  for (const type of chosen.types) {
    const factory = type === EMBEDDED_MEMORY_DB ? simpleVectorDbFactory : memoryDbFactory(type, connectors);
    if (!factory) continue;
    const checked = readSettings(factory, { env: {}, section: given, sectionName: 'memoryDb' });
    if (factory === simpleVectorDbFactory) simpleVectorDbOptions(checked); // refuses a bad value by name
    // With several connectors, a default of one (Qdrant's empty prefix) must not become the value of another.
    for (const [key, value] of Object.entries(checked)) {
      if (chosen.types.length === 1 || (given[key] !== undefined && given[key] !== '')) config.memoryDb[key] = value;
    }
  }
}

/** The content storage type is known, and its factory's settings are present and well-formed (stored back checked). */
function validateContentStorage(config: ServiceConfig, connectors: Connectors, fail: (message: string) => never): void {
  const type = config.contentStorage.type;
  if (type === DISK_CONTENT_STORAGE) return;
  const factory = contentStorageFactoryOf(type, connectors);
  if (!factory) {
    const types = [DISK_CONTENT_STORAGE, ...connectors.contentStorages.map((f) => f.type)].map((t) => `"${t}"`).join(', ');
    fail(`contentStorage.type (KM_CONTENT_STORAGE) must be one of ${types}, got ${JSON.stringify(type)}`);
  }
  Object.assign(config.contentStorage, readSettings(factory!, { env: {}, section: config.contentStorage, sectionName: 'contentStorage' }));
}

function validateAzureOpenAI(config: ServiceConfig, fail: (message: string) => never): void {
  const azure = config.azureOpenai;
  const used = Boolean(
    azure.chatDeployment ||
      azure.embeddingDeployment ||
      config.embeddings.provider === 'azure-openai' ||
      config.textGenerator.type === 'azure-openai',
  );
  if (!used) {
    if (azure.endpoint)
      fail(
        'azureOpenai.endpoint (KM_AZURE_OPENAI_ENDPOINT) is set but no deployment: set KM_AZURE_OPENAI_CHAT_DEPLOYMENT and/or KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT',
      );
    return;
  }
  if (!isHttpUrl(azure.endpoint))
    fail('azureOpenai.endpoint (KM_AZURE_OPENAI_ENDPOINT) must be an http(s):// URL such as https://my-resource.openai.azure.com/');
  if (config.textGenerator.type === 'azure-openai' && !azure.chatDeployment) {
    fail('textGenerator.type is azure-openai but azureOpenai.chatDeployment (KM_AZURE_OPENAI_CHAT_DEPLOYMENT) is not set');
  }
  if (config.embeddings.provider === 'azure-openai' && !azure.embeddingDeployment) {
    fail('embeddings.provider is azure-openai but azureOpenai.embeddingDeployment (KM_AZURE_OPENAI_EMBEDDING_DEPLOYMENT) is not set');
  }
  if (azure.auth !== 'key' && azure.auth !== 'entra')
    fail(`azureOpenai.auth (KM_AZURE_OPENAI_AUTH) must be "key" or "entra", got ${JSON.stringify(azure.auth)}`);
  if (azure.auth === 'key' && !azure.apiKey)
    fail('azureOpenai.apiKey (KM_AZURE_OPENAI_API_KEY) is required with KM_AZURE_OPENAI_AUTH=key; or set KM_AZURE_OPENAI_AUTH=entra');
  if (!/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(azure.apiVersion ?? '')) {
    fail(
      `azureOpenai.apiVersion (KM_AZURE_OPENAI_API_VERSION) must look like 2024-10-21 or 2025-04-01-preview, got ${JSON.stringify(azure.apiVersion)}`,
    );
  }
}

function isHttpUrl(value: string | undefined): boolean {
  if (!value) return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
