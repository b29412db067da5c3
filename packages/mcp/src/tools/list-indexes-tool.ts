import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { okResult, runTool, type ToolContext } from '../tool-context.js';
import { indexesOutput } from '../tool-outputs.js';

/** `list_indexes`: the indexes that hold documents. */
export function registerListIndexesTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'list_indexes',
    {
      title: 'List indexes',
      description: 'Lists the indexes (collections of documents) in memory.',
      outputSchema: indexesOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      runTool('list_indexes', context, async () => {
        const indexes = (await context.memory.listIndexes()).map((i) => i.name);
        return okResult({ indexes }, indexes.length > 0 ? `Indexes: ${indexes.join(', ')}` : 'No index yet.');
      }),
  );
}
