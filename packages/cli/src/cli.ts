import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  DOCUMENT_STATES,
  KmError,
  MAX_DOCUMENT_PAGE,
  type DocumentList,
  type DocumentState,
  type IKernelMemory,
  type ListDocumentsOptions,
  isStatusReady,
  statusFailure,
  type DataPipelineStatus,
  type MemoryAnswer,
} from '@km/core';
import { documentFiltersOf, type DocumentFilterCliOptions } from './document-filters.js';
import { cliContext, type CliContext, type CliIo } from './cli-context.js';
import { CliError, EXIT_CODES, reportError } from './errors.js';
import { formatSearch, formatSources } from './format.js';
import { formatDocumentFiles, formatDocumentTable, formatTags } from './format-documents.js';
import { expandInputs } from './inputs.js';
import { openTarget, type MemoryTarget, type TargetOptions } from './memory-target.js';
import { ImportProgress } from './progress.js';
import { addSyncCommand } from './sync-command.js';
import { tagsOfOptions } from './tag-options.js';
import { addRetrievalOptions, collect, retrievalOf, type RetrievalCliOptions } from './retrieval-options.js';
import { CLI_VERSION } from './version.js';

interface CommonOptions extends TargetOptions {
  index?: string;
  json?: boolean;
}

function addTargetOptions(command: Command, env: NodeJS.ProcessEnv): Command {
  return command
    .option('--url <url>', 'km or Kernel Memory service URL (default: work on the data folder in this process)', env.KM_URL)
    .option('--key <key>', 'access key of the service (default: $KM_API_KEY)')
    .option('--data-dir <dir>', 'data folder in local mode (default: $KM_DATA_DIR or ./km-data)')
    .option('--config <file>', 'JSON configuration file in local mode (default: $KM_CONFIG)')
    .option('-i, --index <name>', 'index (default: "default")')
    .option('--json', 'print JSON');
}

/**
 * The commands that work on a memory: with `--url` they need only the client, and in local mode
 * they load the service's code when they open the data folder (`openTarget`). Any other first
 * argument (`serve`, `worker`, `upgrade`, `help`, none, a typo) loads the host commands too.
 */
const DATA_COMMANDS: ReadonlySet<string> = new Set([
  'import',
  'sync',
  'ask',
  'search',
  'status',
  'delete',
  'redrive',
  'indexes',
  'documents',
  'tags',
  'mcp',
]);

/**
 * Runs `km` with these arguments (as in `process.argv`: the first two are skipped) and returns
 * its exit code: 0, or the code of a command that ended without an error but not as asked (an
 * item failed: 2; interrupted: 130). An error is thrown: {@link runKm} reports it as `km` does.
 * Output goes to `io` (by default the process's stdout and stderr) and settings come from `io.env`.
 */
export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const ctx = cliContext(io);
  const { print, env } = ctx;
  // The command is the first argument that is not an option: km's own options (-v, -h) take no value.
  const command = argv.slice(2).find((arg) => !arg.startsWith('-'));
  const program = new Command('km')
    .description('km: a memory service for AI applications (Kernel Memory compatible)')
    .version(CLI_VERSION, '-v, --version', 'print the km version')
    // Options after a command are the command's own: `km documents files <id> --index x` gives --index to `files`.
    .enablePositionalOptions()
    // Usage errors are thrown (see `throwUsageErrors`) and printed on one line by `reportError`.
    .configureOutput({ writeOut: print, writeErr: (t) => ctx.stderr.write(t), outputError: () => undefined });

  if (command === undefined || !DATA_COMMANDS.has(command)) {
    // Loaded for the pipeline hosts and for help: `km ask --url …` starts without the service's code.
    const { addHostCommands } = await import('./host-commands.js');
    await addHostCommands(program, argv, ctx);
  }

  addTargetOptions(program.command('import'), env)
    .description('import files, folders (recursively) and web pages, one document each')
    .argument('<inputs...>', 'files, folders or http(s) URLs')
    .option('-t, --tag <key:value>', 'tag every document (repeatable)', collect, [])
    .option('--id <documentId>', 'document id (one input only)')
    .option('-w, --wait', 'wait until every document is ready, with a progress bar each (always on in local mode)')
    .action(async (inputs: string[], opts: CommonOptions & { tag: string[]; id?: string; wait?: boolean }) => {
      const items = await expandInputs(inputs);
      if (items.length === 0) throw new KmError('invalid_argument', 'nothing to import');
      if (opts.id && items.length > 1) throw new KmError('invalid_argument', '--id needs exactly one input');
      const tags = await tagsOfOptions(opts.tag);
      await withTarget(ctx, opts, async (target) => {
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
        const results = opts.wait || target.local ? await waitAll(ctx, target, ids, opts.index) : undefined;
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
        if (results?.some((r) => statusFailure(r) !== undefined)) ctx.exitCode = EXIT_CODES.usage;
      });
    });

  addSyncCommand(addTargetOptions(program.command('sync'), env), ctx);

  addRetrievalOptions(addTargetOptions(program.command('ask'), env))
    .description('answer a question from memory, with sources')
    .argument('<question>')
    .option('--no-stream', 'print the answer at the end instead of as it comes')
    .action(async (question: string, opts: CommonOptions & RetrievalCliOptions & { stream: boolean }) => {
      await withTarget(ctx, opts, async (target) => {
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

  addRetrievalOptions(addTargetOptions(program.command('search'), env))
    .description('search memory; results grouped by source')
    .argument('<query>')
    .option('-l, --limit <n>', 'most partitions', Number)
    .action(async (query: string, opts: CommonOptions & RetrievalCliOptions & { limit?: number }) => {
      await withTarget(ctx, opts, async (target) => {
        const result = await target.memory.search(query, {
          ...retrievalOf(opts),
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        });
        print(opts.json ? `${JSON.stringify(result)}\n` : formatSearch(result));
      });
    });

  addTargetOptions(program.command('status'), env)
    .description('show the pipeline status of a document')
    .argument('<documentId>')
    .action(async (documentId: string, opts: CommonOptions) => {
      await withTarget(ctx, opts, async (target) => {
        const status = await target.status(documentId, opts.index);
        if (!status) throw new KmError('document_not_found', `document "${documentId}" not found`);
        if (opts.json) print(`${JSON.stringify(status)}\n`);
        else
          print(
            `${documentId}: ${stateOf(status)}; done: ${status.completed_steps.join(', ') || '-'}; left: ${status.remaining_steps.join(', ') || '-'}\n`,
          );
      });
    });

  addTargetOptions(program.command('delete'), env)
    .description('delete a document (its memories and files)')
    .argument('<documentId>')
    .action(async (documentId: string, opts: CommonOptions) => {
      await withTarget(ctx, opts, async (target) => {
        await target.memory.deleteDocument(documentId, opts.index);
        print(opts.json ? `${JSON.stringify({ documentId, deleted: true })}\n` : `deletion of ${documentId} requested\n`);
      });
    });

  addTargetOptions(program.command('redrive'), env)
    .description('run failed documents again from their last completed step: every index, one with --index, or one document')
    .argument('[documentId]', 'only this document (of --index, default "default")')
    .option('--stalled', 'also documents whose steps stopped moving (their queue message was lost)')
    .option('--stalled-after <seconds>', 'with --stalled: seconds without a change (default 1200)', Number)
    .action(async (documentId: string | undefined, opts: CommonOptions & { stalled?: boolean; stalledAfter?: number }) => {
      await withTarget(ctx, opts, async (target) => {
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

  addTargetOptions(program.command('indexes'), env)
    .description('list the indexes, or delete one')
    .addOption(new Option('--delete <name>', 'delete this index and everything in it'))
    .action(async (opts: CommonOptions & { delete?: string }) => {
      await withTarget(ctx, opts, async (target) => {
        if (opts.delete) {
          await target.memory.deleteIndex(opts.delete);
          print(opts.json ? `${JSON.stringify({ index: opts.delete, deleted: true })}\n` : `deletion of index ${opts.delete} requested\n`);
          return;
        }
        const indexes = await target.memory.listIndexes();
        print(opts.json ? `${JSON.stringify(indexes)}\n` : indexes.map((i) => `${i.name}\n`).join('') || '(no index)\n');
      });
    });

  const documents = addTargetOptions(program.command('documents'), env)
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
      await withTarget(ctx, opts, async (target) => {
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

  addTargetOptions(documents.command('files'), env)
    .description("list a document's stored files: its uploads and the files the pipeline made from them")
    .argument('<documentId>')
    .action(async (documentId: string, opts: CommonOptions) => {
      await withTarget(ctx, opts, async (target) => {
        const files = await target.memory.getDocumentFiles(documentId, opts.index);
        print(opts.json ? `${JSON.stringify(files)}\n` : formatDocumentFiles(files));
      });
    });

  addTargetOptions(program.command('tags'), env)
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
      const tags = await tagsOfOptions(opts.tag);
      await withTarget(ctx, opts, async (target) => {
        const document = await target.memory.updateDocumentTags(documentId, tags, opts.index);
        print(opts.json ? `${JSON.stringify(document)}\n` : `tags of ${document.documentId} replaced: ${formatTags(document.tags)}\n`);
      });
    });

  program
    .command('mcp')
    .description(
      'serve the memory to MCP clients (Claude Desktop, IDEs, agents) over stdio: tools search, ask, import_text, import_url, list_indexes, list_documents, get_document_status, update_document_tags, delete_document',
    )
    .option('--url <url>', 'km or Kernel Memory service URL (default: work on the data folder in this process)', env.KM_URL)
    .option('--key <key>', 'access key of the service (default: $KM_API_KEY)')
    .option('--data-dir <dir>', 'data folder in local mode (default: $KM_DATA_DIR or ./km-data)')
    .option('--config <file>', 'JSON configuration file in local mode (default: $KM_CONFIG)')
    .option('-i, --index <name>', 'index used when a tool call names none (default: "default")')
    .option('--read-only', 'offer only search, ask, list_indexes, list_documents and get_document_status')
    .action(async (opts: TargetOptions & { index?: string; readOnly?: boolean }) => {
      // stdout carries the protocol only: everything else, logs included, goes to stderr.
      await withTarget(ctx, opts, async (target) => {
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
    if (error instanceof CommanderError && error.exitCode === 0) return EXIT_CODES.ok;
    throw error;
  }
  return ctx.exitCode;
}

/**
 * Runs `km` as the `km` program does, for a host that runs it in its own process: an error is
 * printed on one line of `io.stderr` and becomes the exit code, which is returned.
 *
 * ```ts
 * const code = await runKm(['node', 'km', 'search', 'moons', '--url', 'http://127.0.0.1:9001']);
 * ```
 */
export async function runKm(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  try {
    return await runCli(argv, io);
  } catch (error) {
    return reportError(error, io.stderr, io.env);
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

async function withTarget(ctx: CliContext, opts: TargetOptions, run: (target: MemoryTarget) => Promise<void>): Promise<void> {
  const target = await openTarget(opts, ctx);
  try {
    await run(target);
  } finally {
    await target.close();
  }
}

async function waitAll(ctx: CliContext, target: MemoryTarget, ids: string[], index: string | undefined): Promise<DataPipelineStatus[]> {
  const progress = new ImportProgress(ctx.stderr);
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
