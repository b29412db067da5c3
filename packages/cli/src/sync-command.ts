import { type Command, InvalidArgumentError } from 'commander';
import { folderSource, KmError, siteSource, type KmErrorCode, type SyncReport, type SyncSource } from '@km/core';
import type { SyncRequest } from '@km/client';
import { azureSourceFromEnv, s3SourceFromEnv } from './bucket-sources.js';
import type { CliContext } from './cli-context.js';
import { CliError, EXIT_CODES, messageOf } from './errors.js';
import { openTarget, type MemoryTarget, type TargetOptions } from './memory-target.js';
import { collect } from './retrieval-options.js';
import { parseSyncSourceArg, type SyncSourceArg } from './sync-source-arg.js';
import { formatSyncSummary, SyncProgressPrinter } from './sync-progress.js';
import { tagsOfOptions } from './tag-options.js';

/** The options of `km sync`. */
interface SyncCliOptions extends TargetOptions {
  index?: string;
  json?: boolean;
  tag: string[];
  include: string[];
  exclude: string[];
  /** False with `--no-delete`. */
  delete: boolean;
  concurrency?: number;
  sitemap?: string | boolean;
  maxPages?: number;
  watch?: boolean;
}

/**
 * `km sync <source>`: makes an index hold what a folder or a web site holds. Local mode runs the
 * sync in this process; with `--url` a web site is synced by the service (`POST /sync`), followed
 * until done.
 */
export function addSyncCommand(command: Command, ctx: CliContext): Command {
  return command
    .description('keep an index in sync with a folder or a web site: ingest new and changed items, delete the documents of items gone')
    .argument(
      '<source>',
      'a folder; an http(s):// URL (a web site: its sitemap with --sitemap, else the pages linked under it); s3://bucket/prefix or azure://container/prefix (settings as the service: KM_S3_*, KM_AZURE_BLOBS_*)',
    )
    .option('-t, --tag <key:value>', 'tag every synced document (repeatable)', collect, [])
    .option('--include <glob>', 'folder or bucket: only files matching this glob, e.g. "**/*.md" (repeatable)', collect, [])
    .option(
      '--exclude <glob>',
      'folder: leave out files matching this glob (repeatable; .gitignore and .kmignore are read too)',
      collect,
      [],
    )
    .option('--no-delete', 'keep the documents of items the source no longer holds')
    .option('--concurrency <n>', 'items ingested at once (default 4)', wholeNumber(1, 64))
    .option('--sitemap [url]', "web: list the pages of the site's sitemap (default <origin>/sitemap.xml) instead of following links")
    .option('--max-pages <n>', 'web: most pages listed (default 500)', wholeNumber(1, 10_000))
    .option('--watch', 'folder, local mode: sync, then sync again after each change, until Ctrl-C')
    .action(async (value: string, opts: SyncCliOptions) => {
      const source = parseSyncSourceArg(value);
      checkOptions(source, opts);
      const target = await openTarget(opts, ctx);
      try {
        if (source.type === 'folder') await syncLocally(target, folderSourceOf(source.path, opts), opts, ctx);
        else if (source.type === 's3')
          await syncLocally(target, await s3SourceFromEnv(source.bucket, source.prefix, opts, ctx.env), opts, ctx);
        else if (source.type === 'azure-blob')
          await syncLocally(target, await azureSourceFromEnv(source.container, source.prefix, opts, ctx.env), opts, ctx);
        else if (opts.url) await syncWebRemotely(target, source.url, opts, ctx);
        else await syncLocally(target, webSourceOf(source.url, opts, target.allowPrivateNetworks === true, ctx), opts, ctx);
      } finally {
        await target.close();
      }
    });
}

/** Options that do not fit the source, or the mode, are usage errors. */
function checkOptions(source: SyncSourceArg, opts: SyncCliOptions): void {
  const usage = (message: string): never => {
    throw new CliError(`${message} (see km sync --help)`, EXIT_CODES.usage);
  };
  if (source.type === 's3' || source.type === 'azure-blob') {
    if (opts.sitemap !== undefined || opts.maxPages !== undefined) usage('--sitemap and --max-pages are for web sites');
    if (opts.watch) usage('--watch is for folders: a bucket is synced again by running km sync again');
    if (opts.url) usage('buckets are synced in this process: run km sync without --url (the service does not sync buckets yet)');
    return;
  }
  if (source.type === 'folder') {
    if (opts.sitemap !== undefined || opts.maxPages !== undefined) usage('--sitemap and --max-pages are for web sites, not folders');
    if (opts.url) {
      usage(
        `with --url the service runs the sync, and it cannot read the folders of this machine: run km sync without --url to sync ${source.path} ` +
          "into the data folder here, or copy the folder to the service's machine under one of its KM_SYNC_ROOTS and start the sync there " +
          '(POST /sync with {"source": {"type": "folder", "path": …}})',
      );
    }
    return;
  }
  if (opts.include.length > 0 || opts.exclude.length > 0) usage('--include and --exclude are for folders; a web site takes --max-pages');
  if (opts.watch) usage('--watch is for folders: a web site is synced again by running km sync again');
}

function folderSourceOf(path: string, opts: SyncCliOptions): SyncSource {
  return folderSource({
    root: path,
    ...(opts.include.length > 0 ? { include: opts.include } : {}),
    ...(opts.exclude.length > 0 ? { exclude: opts.exclude } : {}),
  });
}

/** A web site read from this machine, private addresses only with KM_WEB_ALLOW_PRIVATE_NETWORKS (as web imports). */
function webSourceOf(url: string, opts: SyncCliOptions, allowPrivateAddresses: boolean, ctx: CliContext): SyncSource {
  return siteSource({
    url,
    ...(opts.sitemap !== undefined ? { sitemap: opts.sitemap } : {}),
    ...(opts.maxPages !== undefined ? { maxPages: opts.maxPages } : {}),
    allowPrivateAddresses,
    onSkip: (page, reason) => void ctx.stderr.write(`skipped ${page}: ${reason}\n`),
  });
}

/** Syncs a source into the local memory, once or (a folder with `--watch`) after every change until Ctrl-C. */
async function syncLocally(target: MemoryTarget, source: SyncSource, opts: SyncCliOptions, ctx: CliContext): Promise<void> {
  if (!target.sync) throw new CliError('this memory cannot sync', EXIT_CODES.error);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (!opts.watch) {
      const report = await runOnce(target, source, opts, stop.signal, ctx);
      if (stop.signal.aborted) ctx.exitCode = EXIT_CODES.interrupted;
      else if (report.failed > 0 || !report.complete) ctx.exitCode = EXIT_CODES.usage;
      return;
    }
    await watchFolder(target, source, opts, stop.signal, ctx);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await source.close?.();
  }
}

/** Syncs, then again after each burst of changes, one run at a time, until `signal` aborts. */
async function watchFolder(
  target: MemoryTarget,
  source: SyncSource,
  opts: SyncCliOptions,
  signal: AbortSignal,
  ctx: CliContext,
): Promise<void> {
  let again = false;
  let running: Promise<void> | undefined;
  const run = async () => {
    do {
      again = false;
      try {
        await runOnce(target, source, opts, signal, ctx);
      } catch (error) {
        // One run that failed (the lease held by another sync…) does not end the watch.
        ctx.stderr.write(`km: sync failed: ${messageOf(error)}\n`);
      }
    } while (again && !signal.aborted);
  };
  const trigger = () => {
    if (signal.aborted) return;
    if (running) again = true;
    else running = run().finally(() => (running = undefined));
  };
  // Watching starts first, so that a change made while the first run goes is not missed.
  const stopWatching = await source.watch!(trigger, signal);
  try {
    trigger();
    ctx.stderr.write(`watching ${source.id.replace(/^folder:/, '')} for changes (Ctrl-C to stop)\n`);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    await stopWatching();
    await running;
  }
}

/** One sync in this process, its progress on stderr and its summary (or report, with `--json`) on stdout. */
async function runOnce(
  target: MemoryTarget,
  source: SyncSource,
  opts: SyncCliOptions,
  signal: AbortSignal,
  ctx: CliContext,
): Promise<SyncReport> {
  const printer = new SyncProgressPrinter(ctx.stderr);
  let report: SyncReport;
  try {
    report = await target.sync!(source, {
      ...(opts.index ? { index: opts.index } : {}),
      tags: await tagsOfOptions(opts.tag),
      deleteMissing: opts.delete,
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
      signal,
      onProgress: (progress) => printer.item(progress),
    });
  } finally {
    printer.stop();
  }
  printReport(report, opts, ctx.print, signal.aborted);
  return report;
}

/** Syncs a web site through the service at `--url`: starts the job, draws its counts, prints its report. */
async function syncWebRemotely(target: MemoryTarget, url: string, opts: SyncCliOptions, ctx: CliContext): Promise<void> {
  const client = target.client;
  if (!client) throw new CliError('web sites are synced through a service: give its URL with --url', EXIT_CODES.usage);
  const request: SyncRequest = {
    ...(opts.index ? { index: opts.index } : {}),
    ...(opts.tag.length > 0 ? { tags: await tagsOfOptions(opts.tag) } : {}),
    deleteMissing: opts.delete,
    ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
    source: {
      type: 'web',
      url,
      ...(opts.sitemap !== undefined ? { sitemap: opts.sitemap } : {}),
      ...(opts.maxPages !== undefined ? { maxPages: opts.maxPages } : {}),
    },
  };
  const started = await client.startSync(request);
  // Ctrl-C cancels the service's job, then waits for it to say it stopped.
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    void client.cancelSyncJob(started.jobId).catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  const printer = new SyncProgressPrinter(ctx.stderr);
  let job: Awaited<ReturnType<typeof client.waitForSync>>;
  try {
    job = await client.waitForSync(started.jobId, { pollIntervalMs: 300, onProgress: (j) => printer.counts(j.phase, j.counts) });
  } finally {
    printer.stop();
    process.off('SIGINT', onSignal);
  }
  if (job.status === 'failed' && !job.report) {
    throw new KmError((job.errorCode ?? 'upstream_error') as KmErrorCode, `the service's sync job ${job.jobId} failed: ${job.error}`);
  }
  if (!job.report)
    throw new CliError(`the service's sync job ${job.jobId} was ${job.status}`, interrupted ? EXIT_CODES.interrupted : EXIT_CODES.error);
  printReport(job.report as SyncReport, opts, ctx.print, job.status === 'cancelled');
  if (job.status === 'cancelled') ctx.exitCode = EXIT_CODES.interrupted;
  else if (job.report.failed > 0 || !job.report.complete) ctx.exitCode = EXIT_CODES.usage;
}

function printReport(report: SyncReport, opts: SyncCliOptions, print: (text: string) => void, interrupted: boolean): void {
  if (opts.json) {
    print(`${JSON.stringify(report)}\n`);
    return;
  }
  print(
    `${formatSyncSummary(report, report.durationMs)}${interrupted ? ' (interrupted)' : report.complete ? '' : ' (incomplete: nothing deleted)'}\n`,
  );
  for (const failure of report.failures) print(`failed ${failure.itemId || '(listing)'}: ${failure.error.replace(/^\[km\]\s*/, '')}\n`);
}

function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`it must be a whole number from ${min} to ${max}`);
    return n;
  };
}
