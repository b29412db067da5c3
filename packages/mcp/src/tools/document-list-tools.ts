import { DOCUMENT_STATES, MAX_DOCUMENT_PAGE, normalizeIndexName, type DocumentState } from '@km/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { memoryFiltersOf, tagCollectionOf } from '../filters.js';
import { documentLine, documentListText, documentListView, documentView } from '../result-views.js';
import { documentFiltersArgument, documentIdArgument, indexArgument, replacementTagsArgument } from '../tool-arguments.js';
import { okResult, runTool, type ToolContext } from '../tool-context.js';
import { documentListOutput, documentTagsOutput } from '../tool-outputs.js';

/** One of the states a document can be listed in. */
const stateArgument = z.enum(DOCUMENT_STATES as readonly [DocumentState, ...DocumentState[]]);

/** `list_documents`: a page of an index's documents with their state, tags and files. */
export function registerListDocumentsTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'list_documents',
    {
      title: 'List documents',
      description:
        'Lists the documents of an index, a page at a time in document id order: state (completed, in_progress, failed, deleting), ' +
        'failure reason, tags, uploaded files and last change. Narrow it by state or by tags; follow nextCursor for the next page.',
      inputSchema: {
        index: indexArgument,
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_DOCUMENT_PAGE)
          .optional()
          .describe(`Most documents in the page, 1 to ${MAX_DOCUMENT_PAGE}. Omit for 100.`),
        cursor: z.string().max(1024).optional().describe('nextCursor of the previous page; omit for the first page.'),
        states: z.array(stateArgument).max(4).optional().describe('Only documents in one of these states, e.g. ["failed"]. Omit for all.'),
        filters: documentFiltersArgument,
      },
      outputSchema: documentListOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('list_documents', context, async () => {
        const list = await context.memory.listDocuments({
          index: normalizeIndexName(context.indexOf(args.index)),
          filters: memoryFiltersOf(args.filters),
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
          ...(args.cursor ? { cursor: args.cursor } : {}),
          ...(args.states ? { states: args.states } : {}),
        });
        const view = documentListView(list);
        return okResult(view, documentListText(view));
      }),
  );
}

/** `update_document_tags`: replaces a document's tags without ingesting it again. */
export function registerUpdateDocumentTagsTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'update_document_tags',
    {
      title: 'Update document tags',
      description:
        'Replaces all the tags of a stored document (search filters see the new tags at once; its text is not ingested again). ' +
        'Refused while the document is still being ingested or deleted. Returns the document with its new tags.',
      inputSchema: { documentId: documentIdArgument, index: indexArgument, tags: replacementTagsArgument },
      outputSchema: documentTagsOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('update_document_tags', context, async () => {
        const index = normalizeIndexName(context.indexOf(args.index));
        const document = await context.memory.updateDocumentTags(args.documentId, tagCollectionOf(args.tags) ?? {}, index);
        const view = documentView(document);
        return okResult(view, `Tags of document ${view.documentId} in index ${view.index} replaced. ${documentLine(view)}`);
      }),
  );
}
