import { KmError, normalizeIndexName, siteSource, type SyncOptions, type SyncReport, type SyncSource } from '@km/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { indexArgument } from '../tool-arguments.js';
import { okResult, runTool, type ToolContext } from '../tool-context.js';

/** Options of the `sync_source` tool (see `MemoryMcpServerOptions.sync`). */
export interface SyncToolOptions {
  /** Let the tool reach loopback, private, link-local and metadata addresses (an intranet site). @default false */
  allowPrivateNetworks?: boolean;
}

/** A memory that syncs in process (MemoryServerless, MemoryService). */
interface SyncingMemory {
  sync(source: SyncSource, options?: SyncOptions): Promise<SyncReport>;
}

/** A client of a km service that runs sync jobs (MemoryWebClient). */
interface SyncJobClient {
  startSync(request: unknown): Promise<{ jobId: string }>;
  waitForSync(jobId: string, options?: { signal?: AbortSignal }): Promise<{ status: string; error?: string; report?: SyncReport }>;
}

const reportOutput = {
  source: z.string(),
  index: z.string(),
  listed: z.number().int().describe('Pages the site listed.'),
  added: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  deleted: z.number().int(),
  failed: z.number().int(),
  complete: z.boolean().describe('False when the listing did not complete: nothing was deleted.'),
  failures: z.array(z.object({ itemId: z.string(), error: z.string() })).describe('Pages that failed, with their reasons (at most 10).'),
};

/**
 * `sync_source`: makes an index hold the pages of a web site (web URLs only: an agent never
 * reads the disk of the machine serving it), through the web fetcher's address guard.
 */
export function registerSyncTool(server: McpServer, context: ToolContext, options: SyncToolOptions): void {
  server.registerTool(
    'sync_source',
    {
      title: 'Sync a web site',
      description:
        'Keeps an index in step with a web site: lists the pages under an http(s) URL (or in its sitemap), ingests new and changed ones, ' +
        'and deletes the documents of pages that are gone. Run it again to pick up changes; unchanged pages cost little. Returns the counts.',
      inputSchema: {
        url: z.string().min(1).max(4096).describe('The start URL: the pages under it (same origin and path) are synced.'),
        sitemap: z.boolean().optional().describe("True: list the pages of the site's sitemap instead of following links."),
        maxPages: z.number().int().min(1).max(10_000).optional().describe('Most pages listed (default 500).'),
        deleteMissing: z.boolean().optional().describe('Delete the documents of pages that are gone (default true).'),
        index: indexArgument,
      },
      outputSchema: reportOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    (args, extra) =>
      runTool('sync_source', context, async () => {
        const url = httpUrl(args.url);
        const index = normalizeIndexName(context.indexOf(args.index));
        const report = await syncSite(context.memory as unknown, { ...args, url, index }, options, extra.signal);
        const { source, listed, added, updated, unchanged, deleted, failed, complete } = report;
        const failures = report.failures.slice(0, 10).map((f) => ({ itemId: f.itemId || '(listing)', error: f.error }));
        const view = { source, index, listed, added, updated, unchanged, deleted, failed, complete, failures };
        const text = complete
          ? `Synced ${source} into index ${index}: added ${added}, updated ${updated}, unchanged ${unchanged}, deleted ${deleted}, failed ${failed}.`
          : `The sync of ${source} did not complete (nothing was deleted): ${failures[0]?.error ?? 'the listing stopped'}.`;
        return okResult(view, text);
      }),
  );
}

async function syncSite(
  memory: unknown,
  args: { url: string; index: string; sitemap?: boolean | undefined; maxPages?: number | undefined; deleteMissing?: boolean | undefined },
  options: SyncToolOptions,
  signal: AbortSignal,
): Promise<SyncReport> {
  const site = {
    url: args.url,
    ...(args.sitemap !== undefined ? { sitemap: args.sitemap } : {}),
    ...(args.maxPages !== undefined ? { maxPages: args.maxPages } : {}),
  };
  const deleteMissing = args.deleteMissing ?? true;
  if (typeof (memory as Partial<SyncingMemory>).sync === 'function') {
    const source = siteSource({ ...site, allowPrivateAddresses: options.allowPrivateNetworks ?? false });
    return (memory as SyncingMemory).sync(source, { index: args.index, deleteMissing, signal });
  }
  if (typeof (memory as Partial<SyncJobClient>).startSync === 'function') {
    // A km service's client: the service syncs the site as a job, under its own address guard.
    const client = memory as SyncJobClient;
    const job = await client.startSync({ index: args.index, deleteMissing, source: { type: 'web', ...site } });
    const done = await client.waitForSync(job.jobId, { signal });
    if (!done.report) throw new KmError('upstream_error', `the service's sync job ${job.jobId} ${done.status}: ${done.error ?? ''}`);
    return done.report;
  }
  throw new KmError('unsupported_operation', 'this memory cannot sync sources');
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new KmError('invalid_argument', `${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KmError('invalid_argument', `sync_source syncs web sites only (http or https), got ${url.protocol}`);
  }
  return url.href;
}
