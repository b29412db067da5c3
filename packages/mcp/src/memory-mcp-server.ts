import { createRequire } from 'node:module';
import { type IKernelMemory, InvalidInputError, normalizeIndexName } from '@km/core';
import type { CollectionSearchTool } from '@km/collections';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from './tool-context.js';
import type { ToolErrorLogger } from './tool-errors.js';
import { registerAskTool } from './tools/ask-tool.js';
import { checkCollectionToolNames, registerCollectionSearchTools } from './tools/collection-search-tools.js';
import { registerDeleteDocumentTool, registerDocumentStatusTool } from './tools/document-tools.js';
import { registerListDocumentsTool, registerUpdateDocumentTagsTool } from './tools/document-list-tools.js';
import { registerImportTextTool, registerImportUrlTool } from './tools/import-tools.js';
import { registerListIndexesTool } from './tools/list-indexes-tool.js';
import { registerSearchTool } from './tools/search-tool.js';
import { registerSyncTool, type SyncToolOptions } from './tools/sync-tool.js';

/** Options of {@link createMemoryMcpServer}. */
export interface MemoryMcpServerOptions {
  /** Offer only the tools that read: search, ask, list_indexes, list_documents, get_document_status. @default false */
  readOnly?: boolean;
  /** Index used when a call names none. @default the memory's default index ("default") */
  defaultIndex?: string;
  /** Server name announced to clients. @default 'km' */
  name?: string;
  /** Receives unexpected (non-km) errors of tool calls, whose details stay out of the results. @default none */
  log?: ToolErrorLogger;
  /**
   * Searches over typed collections (see `collectionSearchTool` in @km/collections), offered next to
   * the memory tools, also in read-only mode (they only read). Names must be unique and differ
   * from the memory tools'. @default none
   */
  collections?: readonly CollectionSearchTool[];
  /**
   * Offer `sync_source` (unless `readOnly`): keeps an index in step with a web site (web URLs
   * only, never the disk). `allowPrivateNetworks` lets it reach private addresses.
   * @default off
   */
  sync?: SyncToolOptions;
}

/** Tools that only read. */
export const READ_TOOLS = ['search', 'ask', 'list_indexes', 'list_documents', 'get_document_status'] as const;
/** Tools that change memory (absent in read-only mode). */
export const WRITE_TOOLS = ['import_text', 'import_url', 'update_document_tags', 'delete_document'] as const;
/** The tool offered with `sync` (not in read-only mode). */
export const SYNC_TOOL = 'sync_source';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * An MCP server whose tools are a km memory: `search`, `ask`, `list_indexes`, `list_documents`,
 * `get_document_status`, and unless `readOnly`, `import_text`, `import_url`,
 * `update_document_tags`, `delete_document`.
 * Every tool has a JSON schema with described arguments and returns text plus structured
 * content; a bad argument or a km error is a tool error (`isError: true`), never a crash.
 * Connect it to any transport of the SDK (see `runStdioServer`, `handleStreamableHttp`).
 * `collections` adds searches over typed collections (`collectionSearchTool` of @km/collections); with
 * no memory (`undefined`) the server offers only those.
 *
 * ```ts
 * const memory = new KernelMemoryBuilder().withDataDirectory('./km-data').build();
 * const server = createMemoryMcpServer(memory, { readOnly: true });
 * await server.connect(new StdioServerTransport());
 * // plus a typed collection: createMemoryMcpServer(memory, { collections: [collectionSearchTool(hotels, { name: 'search_hotels', description: '...' })] })
 * ```
 */
export function createMemoryMcpServer(memory: IKernelMemory | undefined, options: MemoryMcpServerOptions = {}): McpServer {
  const collections = options.collections ?? [];
  checkCollectionToolNames(collections, [...READ_TOOLS, ...WRITE_TOOLS, SYNC_TOOL]);
  if (memory === undefined && collections.length === 0) {
    throw new InvalidInputError('invalid_argument', 'an MCP server needs a memory, collection search tools (options.collections), or both');
  }
  const defaultIndex = options.defaultIndex === undefined ? undefined : normalizeIndexName(options.defaultIndex);
  const collectionLine =
    collections.length === 0
      ? ''
      : ` ${collections.map((t) => t.name).join(', ')} ${collections.length === 1 ? 'searches a collection' : 'search collections'} of records.`;
  const server = new McpServer(
    { name: options.name ?? 'km', version },
    {
      instructions:
        memory === undefined
          ? `Searches over collections of records.${collectionLine}`
          : 'Long-term memory of documents. search finds passages with citations; ask answers from them with sources' +
            (options.readOnly
              ? '. This server is read-only.'
              : '; import_text and import_url add documents (poll get_document_status until completed); update_document_tags replaces the tags of one; delete_document removes one.' +
                (options.sync ? ' sync_source keeps an index in step with a web site.' : '')) +
            ' list_documents lists the documents of an index with their state and tags. Filter by tags with the filters argument.' +
            collectionLine,
    },
  );
  if (memory !== undefined) registerMemoryTools(server, memory, defaultIndex, options);
  registerCollectionSearchTools(server, collections, options.log);
  return server;
}

function registerMemoryTools(
  server: McpServer,
  memory: IKernelMemory,
  defaultIndex: string | undefined,
  options: MemoryMcpServerOptions,
): void {
  const context: ToolContext = {
    memory,
    indexOf: (index) => (index === undefined || index.trim() === '' ? defaultIndex : index),
    log: options.log,
  };
  registerSearchTool(server, context);
  registerAskTool(server, context);
  registerListIndexesTool(server, context);
  registerListDocumentsTool(server, context);
  registerDocumentStatusTool(server, context);
  if (!options.readOnly) {
    registerImportTextTool(server, context);
    registerImportUrlTool(server, context);
    registerUpdateDocumentTagsTool(server, context);
    registerDeleteDocumentTool(server, context);
    if (options.sync) registerSyncTool(server, context, options.sync);
  }
}
