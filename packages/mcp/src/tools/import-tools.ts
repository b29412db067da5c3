import { normalizeIndexName, statusFailure, type ImportOptions } from '@km/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { tagCollectionOf } from '../filters.js';
import { stateOf } from '../result-views.js';
import { indexArgument, newDocumentIdArgument, tagsArgument } from '../tool-arguments.js';
import { okResult, runTool, type ToolContext } from '../tool-context.js';
import { importOutput } from '../tool-outputs.js';

interface ImportArgs {
  documentId?: string | undefined;
  index?: string | undefined;
  tags?: Record<string, string | string[]> | undefined;
}

/** `import_text`: stores a text as a document. */
export function registerImportTextTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'import_text',
    {
      title: 'Import text',
      description:
        'Stores a text in memory as a document (split into passages and indexed for search and ask). ' +
        'Returns the document id and whether ingestion is done; if in_progress, poll get_document_status.',
      inputSchema: {
        text: z.string().min(1).describe('The text to store (plain text or Markdown).'),
        documentId: newDocumentIdArgument,
        index: indexArgument,
        tags: tagsArgument,
      },
      outputSchema: importOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => runTool('import_text', context, () => importWith(context, args, (options) => context.memory.importText(args.text, options))),
  );
}

/** `import_url`: fetches a web page or file and stores it as a document. */
export function registerImportUrlTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'import_url',
    {
      title: 'Import a web page',
      description:
        'Fetches a web page or file (HTML, PDF, text, ...) from an http(s) URL and stores it in memory as a document. ' +
        'Returns the document id and whether ingestion is done; if in_progress, poll get_document_status.',
      inputSchema: {
        url: z.string().min(1).max(4096).describe('The http:// or https:// address to fetch.'),
        documentId: newDocumentIdArgument,
        index: indexArgument,
        tags: tagsArgument,
      },
      outputSchema: importOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (args) => runTool('import_url', context, () => importWith(context, args, (options) => context.memory.importWebPage(args.url, options))),
  );
}

async function importWith(context: ToolContext, args: ImportArgs, run: (options: ImportOptions) => Promise<string>) {
  const index = normalizeIndexName(context.indexOf(args.index));
  const tags = tagCollectionOf(args.tags);
  const documentId = await run({ index, ...(args.documentId ? { documentId: args.documentId } : {}), ...(tags ? { tags } : {}) });
  const status = await context.memory.getDocumentStatus(documentId, index);
  const state = status ? stateOf(status) : 'in_progress';
  const error = status ? statusFailure(status) : undefined;
  const view = { documentId, index, state, ...(error !== undefined ? { error } : {}) };
  const text =
    state === 'completed'
      ? `Imported document ${documentId} into index ${index}; it can be searched now.`
      : state === 'failed'
        ? `Document ${documentId} in index ${index} failed: ${error}`
        : `Document ${documentId} accepted into index ${index}; ingestion continues: call get_document_status until it is completed.`;
  return okResult(view, text);
}
