import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { memoryFiltersOf } from '../filters.js';
import { searchText, searchView } from '../result-views.js';
import { filtersArgument, indexArgument, minRelevanceArgument } from '../tool-arguments.js';
import { okResult, runTool, type ToolContext } from '../tool-context.js';
import { searchOutput } from '../tool-outputs.js';

/** `search`: passages of the stored documents that match a query, grouped by source, with citations. */
export function registerSearchTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'search',
    {
      title: 'Search memory',
      description:
        'Searches the stored documents for passages relevant to a query and returns them grouped by source file, ' +
        'with document id, file name, page or section, relevance and tags. Use it to find raw facts; use ask for a written answer.',
      inputSchema: {
        query: z
          .string()
          .max(10_000)
          .describe('What to look for, in natural language. An empty query lists passages that match the filters.'),
        index: indexArgument,
        minRelevance: minRelevanceArgument,
        limit: z
          .number()
          .int()
          .min(1)
          .max(1000)
          .optional()
          .describe('Most passages to return (they are grouped by source). Omit for the server default.'),
        filters: filtersArgument,
      },
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('search', context, async () => {
        const result = await context.memory.search(args.query, {
          index: context.indexOf(args.index),
          filters: memoryFiltersOf(args.filters),
          ...(args.minRelevance !== undefined ? { minRelevance: args.minRelevance } : {}),
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
        });
        const view = searchView(result);
        return okResult(view, searchText(view));
      }),
  );
}
