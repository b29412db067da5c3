import { type Command, InvalidArgumentError, Option } from 'commander';
import { type IMemoryDb, SEARCH_MODES, type SearchMode } from '@km/core';
import type { ConnectorFactory } from '@km/core/connector';
import {
  BUILT_IN_CONNECTORS,
  RERANKER_KINDS,
  createServiceLogger,
  loadServiceConfig,
  memoryDbsFromConfig,
  toKmLogger,
  simpleVectorDbFactory,
  startService,
  startWorker,
  type Connectors,
  type RerankerKind,
  type ServiceConfigInput,
} from '@km/service';
import type { CliContext } from './cli-context.js';
import { listenError } from './errors.js';
import { connectorsOfArgv } from './plugin-options.js';
import { collect } from './retrieval-options.js';

/** A memory DB that can give its existing tables the indexes it creates (PostgresMemoryDb). */
interface TableUpgrader {
  upgradeTables(
    indexes?: readonly string[],
    options?: { maintenanceWorkMem?: string },
  ): Promise<Array<{ index: string; table?: string; created: string[] }>>;
}

/**
 * Adds the commands that host the pipeline or change its stores, `serve`, `worker` and
 * `upgrade`, with a flag for each setting of every connector factory the service knows (its
 * built-in ones and the plugins the arguments, KM_PLUGINS or the configuration file name).
 */
export async function addHostCommands(program: Command, argv: readonly string[], ctx: CliContext): Promise<void> {
  const { print, env } = ctx;
  // `km serve` and `km worker` load their plugins first: the plugins' factories add types and flags.
  const connectors = (await connectorsOfArgv(argv, env)) ?? BUILT_IN_CONNECTORS;

  addPipelineOptions(program.command('serve'), connectors)
    .description('run the HTTP service (defaults: 127.0.0.1:9001, ./km-data, local embeddings, no key)')
    .option('--host <host>', 'interface to listen on')
    .option('-p, --port <port>', 'TCP port (default: $KM_PORT, else 9001)', parsePort)
    .option('--data-dir <dir>', 'data folder')
    .option('--config <file>', 'JSON configuration file')
    .option('--no-handlers', 'only queue work: run the pipeline in `km worker` processes')
    .addOption(
      new Option(
        '--search-mode <mode>',
        'how search and ask retrieve when a request does not say (default: $KM_SEARCH_MODE, else vector)',
      ).choices(SEARCH_MODES),
    )
    .addOption(
      new Option(
        '--reranker <kind>',
        'reranks search and ask results; cohere, jina and voyage need $KM_RERANKER_API_KEY (default: $KM_RERANKER, else none)',
      ).choices(RERANKER_KINDS),
    )
    .option('--reranker-model <name>', "the reranking model (default: $KM_RERANKER_MODEL, else the provider's)")
    .option('--reranker-url <url>', "the reranking API's root, e.g. a proxy (default: $KM_RERANKER_URL, else the provider's)")
    .action(async (opts: ServeOptions) => {
      const service = await startService({
        overrides: serveOverrides(opts, connectors),
        connectors,
        ...(opts.config ? { configFile: opts.config } : {}),
        env,
        handleSignals: true,
      }).catch((error: unknown) => {
        throw listenError(error, opts.port, opts.host);
      });
      print(`km service listening on ${service.url} (data: ${service.config.dataDirectory}; API docs: ${service.url}/docs)\n`);
    });

  addPipelineOptions(program.command('worker'), connectors)
    .description('run the pipeline steps from the queues (a data folder, RabbitMQ or Azure), without HTTP; start several to share the work')
    .option('--data-dir <dir>', 'data folder shared with the service')
    .option('--config <file>', 'JSON configuration file')
    .action(async (opts: PipelineOptions & { dataDir?: string; config?: string }) => {
      const overrides = { ...(opts.dataDir ? { dataDirectory: opts.dataDir } : {}), ...pipelineOverrides(opts, connectors) };
      const worker = await startWorker({
        overrides,
        connectors,
        ...(opts.config ? { configFile: opts.config } : {}),
        env,
        handleSignals: true,
      });
      print(
        `km worker running (queue: ${worker.config.queue.type}, memory DB: ${worker.config.memoryDb.type}, data: ${worker.config.dataDirectory})\n`,
      );
    });

  addPipelineOptions(program.command('upgrade'), connectors)
    .description(
      "give the memory DB's existing tables the indexes this version creates (PostgreSQL: tags GIN index, full-text column, HNSW index); safe to run again",
    )
    .option('--data-dir <dir>', 'data folder (the embedded memory DB has nothing to upgrade)')
    .option('--config <file>', 'JSON configuration file')
    .option('-i, --index <name>', 'only this index (repeatable; default: every index)', collect, [])
    .option(
      '--maintenance-work-mem <size>',
      "PostgreSQL's maintenance_work_mem for index builds, e.g. 2GB (default: enough for each table)",
    )
    .option('--json', 'print JSON')
    .action(
      async (
        opts: PipelineOptions & { dataDir?: string; config?: string; index: string[]; maintenanceWorkMem?: string; json?: boolean },
      ) => {
        const { config } = await loadServiceConfig({
          overrides: { ...(opts.dataDir ? { dataDirectory: opts.dataDir } : {}), ...pipelineOverrides(opts, connectors) },
          connectors,
          ...(opts.config ? { file: opts.config } : {}),
          env,
        });
        const dbs = await memoryDbsFromConfig(config.memoryDb, { logger: toKmLogger(createServiceLogger(config.logLevel)) }, connectors);
        const report: Array<{ memoryDb: string; index: string; table?: string; created: string[] }> = [];
        try {
          for (const db of dbs) {
            const upgradable = db as IMemoryDb & Partial<TableUpgrader>;
            if (typeof upgradable.upgradeTables !== 'function') continue;
            const options = opts.maintenanceWorkMem ? { maintenanceWorkMem: opts.maintenanceWorkMem } : {};
            for (const u of await upgradable.upgradeTables(opts.index.length > 0 ? opts.index : undefined, options)) {
              report.push({ memoryDb: db.constructor.name, ...u });
            }
          }
        } finally {
          await Promise.allSettled(dbs.map((db) => (db as { close?: () => Promise<void> }).close?.()));
        }
        if (opts.json) print(`${JSON.stringify(report)}\n`);
        else if (report.length === 0) print(`nothing to upgrade: the memory DB (${config.memoryDb.type}) keeps no tables km upgrades\n`);
        else for (const r of report) print(`${r.index}: ${r.created.length > 0 ? `created ${r.created.join(', ')}` : 'up to date'}\n`);
      },
    );
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('it must be a whole number from 0 to 65535');
  return port;
}

/** Where the pipeline's queues and records live, shared by `serve` and `worker`. */
interface PipelineOptions {
  queue?: string;
  memoryDb?: string;
  contentStorage?: string;
  /** `--plugin`, repeatable. */
  plugin?: string[];
  /** Values of the connector factories' flags (`--rabbitmq-url`, `--postgres-url`, ...). */
  [flag: string]: unknown;
}

type FlagSection = 'queue' | 'memoryDb' | 'contentStorage' | 'textGenerator' | 'embeddings';

/**
 * The connector settings that have a command-line flag, from every factory the service knows,
 * with their options. A flag two factories share (Ollama's `--ollama-url`, for answers and for
 * embeddings) is one option that sets both sections.
 */
const connectorFlags = (connectors: Connectors) => {
  const flags: Array<{ sections: Array<{ section: FlagSection; key: string }>; users: string[]; option: Option }> = [];
  const byFlag = new Map<string, (typeof flags)[number]>();
  const groups = [
    ['queue', '--queue', connectors.queues],
    ['memoryDb', '--memory-db', [simpleVectorDbFactory, ...connectors.memoryDbs]],
    ['contentStorage', '--content-storage', connectors.contentStorages],
    ['textGenerator', '--text-generator', connectors.textGenerators],
    ['embeddings', '--embedding-generator', connectors.embeddingGenerators],
  ] as const;
  for (const [section, chooser, factories] of groups) {
    for (const factory of factories as readonly ConnectorFactory<unknown, never>[]) {
      for (const setting of factory.settings) {
        if (!setting.flag) continue;
        const known = byFlag.get(setting.flag);
        if (known) {
          if (!known.sections.some((s) => s.section === section && s.key === setting.key)) {
            known.sections.push({ section, key: setting.key });
            known.users.push(`${chooser} ${factory.type}`);
            known.option.description = `${setting.description}, for ${known.users.join(' and ')} (default: $${setting.env[0]})`;
          }
          continue;
        }
        const flag = {
          sections: [{ section, key: setting.key }],
          users: [`${chooser} ${factory.type}`],
          option: new Option(
            `${setting.flag} <value>`,
            `${setting.description}, for ${chooser} ${factory.type} (default: $${setting.env[0]})`,
          ),
        };
        byFlag.set(setting.flag, flag);
        flags.push(flag);
      }
    }
  }
  return flags;
};

function addPipelineOptions(command: Command, connectors: Connectors): Command {
  const [defaultQueue, ...otherQueues] = connectors.queues.map((f) => f.type);
  command
    .option(
      '--plugin <package or path>',
      "load a connector package (installed in this project) or module (a path starting with ./ or /) that exports kmPlugin; repeatable, added to $KM_PLUGINS and the configuration file's plugins",
      collect,
      [],
    )
    .option('--queue <type>', `pipeline queues: ${defaultQueue} (default, one machine), or ${otherQueues.join(', ')}`)
    .option(
      '--memory-db <type>',
      `memory records: simple (default, one writing process), or ${connectors.memoryDbs.map((f) => f.type).join(', ')} (shared by every worker); several separated by commas are all written, the first searched`,
    )
    .option(
      '--content-storage <type>',
      `files and pipeline state: disk (default, the data folder), or ${connectors.contentStorages.map((f) => f.type).join(', ')} (shared by every machine)`,
    )
    .option(
      '--text-generator <type>',
      `answers: openai, azure-openai, ${connectors.textGenerators.map((f) => f.type).join(', ')} or none (default: $KM_TEXT_GENERATOR, else OpenAI or Azure OpenAI when configured, else extractive answers)`,
    )
    .option(
      '--embedding-generator <type>',
      `embeddings: local (default), hashing, openai, azure-openai or ${connectors.embeddingGenerators.map((f) => f.type).join(', ')} (default: $KM_EMBEDDING_GENERATOR)`,
    );
  for (const { option } of connectorFlags(connectors)) command.addOption(option);
  return command;
}

function pipelineOverrides(opts: PipelineOptions, connectors: Connectors): ServiceConfigInput {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const sections: Record<FlagSection, Record<string, string>> = {
    queue: opts.queue ? { type: opts.queue } : {},
    memoryDb: opts.memoryDb ? { type: opts.memoryDb } : {},
    contentStorage: opts.contentStorage ? { type: opts.contentStorage } : {},
    textGenerator: text(opts.textGenerator) ? { type: text(opts.textGenerator)! } : {},
    embeddings: text(opts.embeddingGenerator) ? { provider: text(opts.embeddingGenerator)! } : {},
  };
  for (const { sections: targets, option } of connectorFlags(connectors)) {
    const value = text(opts[option.attributeName()]);
    if (value !== undefined) for (const { section, key } of targets) sections[section][key] = value;
  }
  return {
    ...(Object.fromEntries(Object.entries(sections).filter(([, section]) => Object.keys(section).length > 0)) as ServiceConfigInput),
    ...(opts.plugin?.length ? { plugins: opts.plugin } : {}),
  };
}

/** The options of `km serve`. */
type ServeOptions = PipelineOptions & {
  host?: string;
  port?: number;
  dataDir?: string;
  config?: string;
  handlers: boolean;
  searchMode?: SearchMode;
  reranker?: RerankerKind;
  rerankerModel?: string;
  rerankerUrl?: string;
};

function serveOverrides(opts: ServeOptions, connectors: Connectors): ServiceConfigInput {
  const search = {
    ...(opts.searchMode ? { mode: opts.searchMode } : {}),
    ...(opts.reranker ? { reranker: opts.reranker } : {}),
    ...(opts.rerankerModel ? { rerankerModel: opts.rerankerModel } : {}),
    ...(opts.rerankerUrl ? { rerankerUrl: opts.rerankerUrl } : {}),
  };
  return {
    ...(Object.keys(search).length ? { search } : {}),
    ...pipelineOverrides(opts, connectors),
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.dataDir ? { dataDirectory: opts.dataDir } : {}),
    ...(opts.handlers === false ? { runHandlers: false } : {}),
  };
}
