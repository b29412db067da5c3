import { KmError, normalizeIndexName } from '@km/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { statusText, statusView } from '../result-views.js';
import { documentIdArgument, indexArgument } from '../tool-arguments.js';
import { okResult, runTool, type ToolContext } from '../tool-context.js';
import { deleteOutput, statusOutput } from '../tool-outputs.js';

/** `get_document_status`: where a document's ingestion stands. */
export function registerDocumentStatusTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'get_document_status',
    {
      title: 'Document status',
      description:
        'Tells whether a document is ready to be searched, still being ingested (with the steps done and left), or failed (with the reason).',
      inputSchema: { documentId: documentIdArgument, index: indexArgument },
      outputSchema: statusOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('get_document_status', context, async () => {
        const index = normalizeIndexName(context.indexOf(args.index));
        const status = await context.memory.getDocumentStatus(args.documentId, index);
        if (!status) throw notFound(args.documentId, index);
        const view = statusView(status);
        return okResult(view, statusText(view));
      }),
  );
}

/** `delete_document`: removes a document, its passages and its files. */
export function registerDeleteDocumentTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'delete_document',
    {
      title: 'Delete a document',
      description: 'Deletes a document from an index: its passages leave search results and its files are removed. This cannot be undone.',
      inputSchema: { documentId: documentIdArgument, index: indexArgument },
      outputSchema: deleteOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('delete_document', context, async () => {
        const index = normalizeIndexName(context.indexOf(args.index));
        if (!(await context.memory.getDocumentStatus(args.documentId, index))) throw notFound(args.documentId, index);
        await context.memory.deleteDocument(args.documentId, index);
        return okResult({ documentId: args.documentId, index, deleted: true }, `Deleted document ${args.documentId} from index ${index}.`);
      }),
  );
}

function notFound(documentId: string, index: string): KmError {
  return new KmError(
    'document_not_found',
    `there is no document ${JSON.stringify(documentId)} in index ${JSON.stringify(index)} (list_indexes shows the indexes)`,
  );
}
