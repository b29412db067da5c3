import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  DOCUMENT_STATES,
  KmError,
  MAX_DOCUMENT_PAGE,
  SEARCH_MODES,
  type DocumentList,
  type DocumentState,
  type IKernelMemory,
  type IMemoryDb,
  type ListDocumentsOptions,
  isStatusReady,
  statusFailure,
  type DataPipelineStatus,
  type MemoryAnswer,
  type SearchMode,
} from '@km/core';
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
import { documentFiltersOf, type DocumentFilterCliOptions } from './document-filters.js';
import { CliError, EXIT_CODES, listenError } from './errors.js';
import { formatSearch, formatSources } from './format.js';
import { formatDocumentFiles, formatDocumentTable, formatTags } from './format-documents.js';
import { connectorsOfArgv } from './plugin-options.js';
import { expandInputs } from './inputs.js';
import { openTarget, type MemoryTarget, type TargetOptions } from './memory-target.js';
import { ImportProgress } from './progress.js';
import { addSyncCommand } from './sync-command.js';
import { tagsOfOptions } from './tag-options.js';
import { addRetrievalOptions, collect, retrievalOf, type RetrievalCliOptions } from './retrieval-options.js';
import { CLI_VERSION } from './version.js';

/** A memory DB that can give its existing tables the indexes it creates (PostgresMemoryDb). */
interface TableUpgrader {
  upgradeTables(
    indexes?: readonly string[],
    options?: { maintenanceWorkMem?: string },
  ): Promise<Array<{ index: string; table?: string; created: string[] }>>;
}

interface CommonOptions extends TargetOptions {
  index?: string;
  json?: boolean;
}

function addTargetOptions(command: Command): Command {
  return command
    .option('--url <url>', 'km or Kernel Memory service URL (default: work on the data folder in this process)', process.env.KM_URL)
    .option('--key <key>', 'access key of the service (default: $KM_API_KEY)')
    .option('--data-dir <dir>', 'data folder in local mode (default: $KM_DATA_DIR or ./km-data)')
    .option('--config <file>', 'JSON configuration file in local mode (default: $KM_CONFIG)')
    .option('-i, --index <name>', 'index (default: "default")')
    .option('--json', 'print JSON');
}

/** Runs `km` with these arguments (as in `process.argv`). */
export async function runCli(argv: readonly string[], out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const print = (text: string) => out.write(text);
  // `km serve` and `km worker` load their plugins first: the plugins' factories add types and flags.
  const connectors = (await connectorsOfArgv(argv)) ?? BUILT_IN_CONNECTORS;
  const program = new Command('km')
    .description('km: a memory service for AI applications (Kernel Memory compatible)')
    .version(CLI_VERSION, '-v, --version', 'print the km version')
    // Options after a command are the command's own: `km documents files <id> --index x` gives --index to `files`.
    .enablePositionalOptions()
    // Usage errors are thrown (see `throwUsageErrors`) and printed on one line by `reportError`.
    .configureOutput({ writeOut: print, writeErr: (t) => process.stderr.write(t), outputError: () => undefined });

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
          ...(opts.config ? { configFile: opts.config } : {}),
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

  addTargetOptions(program.command('import'))
    .description('import files, folders (recursively) and web pages, one document each')
    .argument('<inputs...>', 'files, folders or http(s) URLs')
    .option('-t, --tag <key:value>', 'tag every document (repeatable)', collect, [])
    .option('--id <documentId>', 'document id (one input only)')
    .option('-w, --wait', 'wait until every document is ready, with a progress bar each (always on in local mode)')
    .action(async (inputs: string[], opts: CommonOptions & { tag: string[]; id?: string; wait?: boolean }) => {
      const items = await expandInputs(inputs);
      if (items.length === 0) throw new KmError('invalid_argument', 'nothing to import');
      if (opts.id && items.length > 1) throw new KmError('invalid_argument', '--id needs exactly one input');
      const tags = tagsOfOptions(opts.tag);
      await withTarget(opts, async (target) => {
        const ids: string[] = [];
        for (const item of items) {
          const documentId = opts.id ?? item.documentId;
          const options = { documentId, tags, ...(opts.index ? { index: opts.index } : {}) };
          ids.push(
            item.kind === 'url'
              ? await target.memory.importWebPage(item.url, options)
              : await target.memory.importDocument(item.path, options),
          );
        }
        const results = opts.wait || target.local ? await waitAll(target, ids, opts.index) : undefined;
        if (opts.json) print(`${JSON.stringify(results ?? ids.map((documentId) => ({ documentId, queued: true })))}\n`);
        else {
          print(
            results
              ? `${results.filter(isStatusReady).length} of ${ids.length} documents ready\n`
              : `${ids.length} documents queued: ${ids.join(', ')}\n`,
          );
          for (const [i, r] of (results ?? []).entries()) {
            const failure = statusFailure(r);
            if (failure !== undefined) print(`${ids[i]}: failed: ${failure}\n`);
          }
        }
        if (results?.some((r) => statusFailure(r) !== undefined)) process.exitCode = EXIT_CODES.usage;
      });
    });

  addSyncCommand(addTargetOptions(program.command('sync')), print);

  addRetrievalOptions(addTargetOptions(program.command('ask')))
    .description('answer a question from memory, with sources')
    .argument('<question>')
    .option('--no-stream', 'print the answer at the end instead of as it comes')
    .action(async (question: string, opts: CommonOptions & RetrievalCliOptions & { stream: boolean }) => {
      await withTarget(opts, async (target) => {
        const options = retrievalOf(opts);
        if (opts.json || !opts.stream) {
          const answer = await target.memory.ask(question, options);
          print(opts.json ? `${JSON.stringify(answer)}\n` : `${answer.text}\n${formatSources(answer)}`);
          return;
        }
        let last: MemoryAnswer | undefined;
        for await (const chunk of target.memory.askStreaming(question, options)) {
          print(chunk.text);
          if (chunk.relevantSources.length > 0) last = chunk;
        }
        print(`\n${last ? formatSources(last) : ''}`);
      });
    });

  addRetrievalOptions(addTargetOptions(program.command('search')))
    .description('search memory; results grouped by source')
    .argument('<query>')
    .option('-l, --limit <n>', 'most partitions', Number)
    .action(async (query: string, opts: CommonOptions & RetrievalCliOptions & { limit?: number }) => {
      await withTarget(opts, async (target) => {
        const result = await target.memory.search(query, {
          ...retrievalOf(opts),
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        });
        print(opts.json ? `${JSON.stringify(result)}\n` : formatSearch(result));
      });
    });

  addTargetOptions(program.command('status'))
    .description('show the pipeline status of a document')
    .argument('<documentId>')
    .action(async (documentId: string, opts: CommonOptions) => {
      await withTarget(opts, async (target) => {
        const status = await target.status(documentId, opts.index);
        if (!status) throw new KmError('document_not_found', `document "${documentId}" not found`);
        if (opts.json) print(`${JSON.stringify(status)}\n`);
        else
          print(
            `${documentId}: ${stateOf(status)}; done: ${status.completed_steps.join(', ') || '-'}; left: ${status.remaining_steps.join(', ') || '-'}\n`,
          );
      });
    });

  addTargetOptions(program.command('delete'))
    .description('delete a document (its memories and files)')
    .argument('<documentId>')
    .action(async (documentId: string, opts: CommonOptions) => {
      await withTarget(opts, async (target) => {
        await target.memory.deleteDocument(documentId, opts.index);
        print(opts.json ? `${JSON.stringify({ documentId, deleted: true })}\n` : `deletion of ${documentId} requested\n`);
      });
    });

  addTargetOptions(program.command('redrive'))
    .description('run failed documents again from their last completed step: every index, one with --index, or one document')
    .argument('[documentId]', 'only this document (of --index, default "default")')
    .option('--stalled', 'also documents whose steps stopped moving (their queue message was lost)')
    .option('--stalled-after <seconds>', 'with --stalled: seconds without a change (default 1200)', Number)
    .action(async (documentId: string | undefined, opts: CommonOptions & { stalled?: boolean; stalledAfter?: number }) => {
      await withTarget(opts, async (target) => {
        const scoped = documentId !== undefined || opts.index !== undefined;
        const result = await target.redrive({
          ...(scoped ? { index: opts.index ?? 'default' } : {}),
          ...(documentId !== undefined ? { documentId } : {}),
          ...(opts.stalled ? { stalled: true } : {}),
          ...(opts.stalledAfter !== undefined ? { stalledAfterMs: opts.stalledAfter * 1000 } : {}),
        });
        if (opts.json) {
          print(`${JSON.stringify(result)}\n`);
          return;
        }
        for (const d of result.redriven) {
          print(`${d.index}/${d.documentId}: ${d.was}, queued again from ${d.step}${d.error ? ` (was: ${d.error})` : ''}\n`);
        }
        print(`${result.redriven.length} of ${result.checked} document(s) queued again\n`);
      });
    });

  addTargetOptions(program.command('indexes'))
    .description('list the indexes, or delete one')
    .addOption(new Option('--delete <name>', 'delete this index and everything in it'))
    .action(async (opts: CommonOptions & { delete?: string }) => {
      await withTarget(opts, async (target) => {
        if (opts.delete) {
          await target.memory.deleteIndex(opts.delete);
          print(opts.json ? `${JSON.stringify({ index: opts.delete, deleted: true })}\n` : `deletion of index ${opts.delete} requested\n`);
          return;
        }
        const indexes = await target.memory.listIndexes();
        print(opts.json ? `${JSON.stringify(indexes)}\n` : indexes.map((i) => `${i.name}\n`).join('') || '(no index)\n');
      });
    });

  const documents = addTargetOptions(program.command('documents'))
    .description('list the documents of an index with their state, tags, files, size and last change, a page at a time')
    .option('-t, --tag <key:value>', 'only documents with this tag (repeatable, all must match; __document_id works too)', collect, [])
    .option(
      '--filter <json>',
      'only documents matching KM filter JSON: {"key": ["value"]} or a list of such objects (any may match; "!key" excludes)',
    )
    .option(
      '-s, --state <states>',
      `only documents in these states: ${DOCUMENT_STATES.join(', ')} (comma-separated or repeated)`,
      collectStates,
      [],
    )
    .option('-l, --limit <n>', `most documents per page, 1 to ${MAX_DOCUMENT_PAGE} (default 100)`, parseDocumentLimit)
    .option('--cursor <cursor>', 'continue from the cursor a previous page printed')
    .option('--all', 'follow the cursors: every page')
    .enablePositionalOptions()
    .action(async (opts: CommonOptions & DocumentFilterCliOptions & DocumentPageCliOptions) => {
      const filters = documentFiltersOf(opts);
      await withTarget(opts, async (target) => {
        const request: ListDocumentsOptions = {
          ...(opts.index ? { index: opts.index } : {}),
          filters,
          states: opts.state,
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
          ...(opts.cursor ? { cursor: opts.cursor } : {}),
        };
        const list = await listDocumentPages(target.memory, request, opts.all === true);
        if (opts.json) {
          print(`${JSON.stringify(list)}\n`);
          return;
        }
        print(formatDocumentTable(list.documents));
        if (list.nextCursor !== null) print(`next page: --cursor ${list.nextCursor}\n`);
      });
    });

  addTargetOptions(documents.command('files'))
    .description("list a document's stored files: its uploads and the files the pipeline made from them")
    .argument('<documentId>')
    .action(async (documentId: string, opts: CommonOptions) => {
      await withTarget(opts, async (target) => {
        const files = await target.memory.getDocumentFiles(documentId, opts.index);
        print(opts.json ? `${JSON.stringify(files)}\n` : formatDocumentFiles(files));
      });
    });

  addTargetOptions(program.command('tags'))
    .description("replace a document's tags (its text is not ingested again; search sees the new tags at once)")
    .argument('<documentId>')
    .option('-t, --tag <key:value>', 'a tag of the document (repeatable): it keeps only these', collect, [])
    .option('--clear', 'remove every tag of the document')
    .action(async (documentId: string, opts: CommonOptions & { tag: string[]; clear?: boolean }) => {
      if (opts.tag.length === 0 && !opts.clear) {
        throw new CliError(
          'give the new tags with --tag key:value (repeatable), or --clear to remove them all (see km tags --help)',
          EXIT_CODES.usage,
        );
      }
      if (opts.tag.length > 0 && opts.clear)
        throw new CliError('--clear removes every tag: give it without --tag (see km tags --help)', EXIT_CODES.usage);
      const tags = tagsOfOptions(opts.tag);
      await withTarget(opts, async (target) => {
        const document = await target.memory.updateDocumentTags(documentId, tags, opts.index);
        print(opts.json ? `${JSON.stringify(document)}\n` : `tags of ${document.documentId} replaced: ${formatTags(document.tags)}\n`);
      });
    });

  program
    .command('mcp')
    .description(
      'serve the memory to MCP clients (Claude Desktop, IDEs, agents) over stdio: tools search, ask, import_text, import_url, list_indexes, list_documents, get_document_status, update_document_tags, delete_document',
    )
    .option('--url <url>', 'km or Kernel Memory service URL (default: work on the data folder in this process)', process.env.KM_URL)
    .option('--key <key>', 'access key of the service (default: $KM_API_KEY)')
    .option('--data-dir <dir>', 'data folder in local mode (default: $KM_DATA_DIR or ./km-data)')
    .option('--config <file>', 'JSON configuration file in local mode (default: $KM_CONFIG)')
    .option('-i, --index <name>', 'index used when a tool call names none (default: "default")')
    .option('--read-only', 'offer only search, ask, list_indexes, list_documents and get_document_status')
    .action(async (opts: TargetOptions & { index?: string; readOnly?: boolean }) => {
      // stdout carries the protocol only: everything else, logs included, goes to stderr.
      await withTarget(opts, async (target) => {
        // Loaded here: the MCP SDK is not needed by the other commands.
        const { runStdioServer } = await import('@km/mcp');
        const server = await runStdioServer(target.memory, {
          readOnly: opts.readOnly === true,
          ...(opts.index ? { defaultIndex: opts.index } : {}),
        });
        const stop = () => void server.close();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        try {
          await server.closed;
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      });
    });

  throwUsageErrors(program);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    // Help and version were printed: nothing went wrong.
    if (error instanceof CommanderError && error.exitCode === 0) return;
    throw error;
  }
}

/**
 * Makes commander throw instead of exiting: a usage error becomes a CliError naming the
 * command's help; help shown because no command was given exits with the usage code, silently.
 */
function throwUsageErrors(command: Command): void {
  command.exitOverride((error) => {
    if (error.exitCode === 0) throw error;
    if (error.code === 'commander.help') throw new CliError('', EXIT_CODES.usage, { cause: error });
    const message = error.message.replace(/^error: /, '').replace(/\.$/, '');
    throw new CliError(`${message} (see ${commandPath(command)} --help)`, EXIT_CODES.usage, { cause: error });
  });
  for (const sub of command.commands) throwUsageErrors(sub);
}

function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('it must be a whole number from 0 to 65535');
  return port;
}

/** The paging options of `km documents`. */
interface DocumentPageCliOptions {
  state: DocumentState[];
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/** The value of `--state`, repeatable and comma-separated: every state given, each one checked. */
function collectStates(value: string, previous: DocumentState[] = []): DocumentState[] {
  const states = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const state of states) {
    if (!(DOCUMENT_STATES as readonly string[]).includes(state)) {
      throw new InvalidArgumentError(`${JSON.stringify(state)} is not one of ${DOCUMENT_STATES.join(', ')}`);
    }
  }
  return [...previous, ...(states as DocumentState[])];
}

function parseDocumentLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value.trim()) || limit < 1 || limit > MAX_DOCUMENT_PAGE) {
    throw new InvalidArgumentError(`it must be a whole number from 1 to ${MAX_DOCUMENT_PAGE}`);
  }
  return limit;
}

/** One page of documents, or with `all` every page from the request's cursor on (then `nextCursor` is null). */
async function listDocumentPages(memory: IKernelMemory, request: ListDocumentsOptions, all: boolean): Promise<DocumentList> {
  let page = await memory.listDocuments(request);
  const documents = [...page.documents];
  while (all && page.nextCursor !== null) {
    page = await memory.listDocuments({ ...request, cursor: page.nextCursor });
    documents.push(...page.documents);
  }
  return { index: page.index, documents, nextCursor: page.nextCursor };
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

async function withTarget(opts: TargetOptions, run: (target: MemoryTarget) => Promise<void>): Promise<void> {
  const target = await openTarget(opts);
  try {
    await run(target);
  } finally {
    await target.close();
  }
}

async function waitAll(target: MemoryTarget, ids: string[], index: string | undefined): Promise<DataPipelineStatus[]> {
  const progress = new ImportProgress();
  const pending = new Set(ids);
  const final = new Map<string, DataPipelineStatus>();
  try {
    while (pending.size > 0) {
      for (const id of [...pending]) {
        const status = await target.status(id, index);
        progress.update(id, status);
        if (status && (statusFailure(status) !== undefined || isStatusReady(status))) {
          final.set(id, status);
          pending.delete(id);
        }
      }
      if (pending.size > 0) await new Promise((r) => setTimeout(r, target.local ? 100 : 300));
    }
  } finally {
    progress.stop();
  }
  return ids.map((id) => final.get(id)!);
}

/** A document's state in words: a failed file makes it failed, with each file and its reason. */
function stateOf(status: DataPipelineStatus): string {
  const failure = statusFailure(status);
  if (failure !== undefined) return `failed (${failure})`;
  if (status.completed) return 'completed';
  const failedFiles = status.failed_files ?? [];
  return failedFiles.length > 0
    ? `in progress, failed files: ${failedFiles.map((f) => `${f.name} (${f.error})`).join(', ')}`
    : 'in progress';
}
