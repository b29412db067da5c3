import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { memoryFiltersOf } from '../filters.js';
import { askText, askView } from '../result-views.js';
import { filtersArgument, indexArgument, minRelevanceArgument } from '../tool-arguments.js';
import { okResult, runTool, type ToolContext } from '../tool-context.js';
import { askOutput } from '../tool-outputs.js';

/** `ask`: an answer drawn from the stored documents, with its sources. */
export function registerAskTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'ask',
    {
      title: 'Ask memory',
      description:
        'Answers a question from the stored documents only, and lists the sources used (file, page or section, link). ' +
        'When nothing relevant is stored, noResult is true and the answer says so.',
      inputSchema: {
        question: z.string().min(1).max(10_000).describe('The question, in natural language.'),
        index: indexArgument,
        minRelevance: minRelevanceArgument,
        filters: filtersArgument,
      },
      outputSchema: askOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool('ask', context, async () => {
        const answer = await context.memory.ask(args.question, {
          index: context.indexOf(args.index),
          filters: memoryFiltersOf(args.filters),
          ...(args.minRelevance !== undefined ? { minRelevance: args.minRelevance } : {}),
        });
        const view = askView(answer);
        return okResult(view, askText(view));
      }),
  );
}
