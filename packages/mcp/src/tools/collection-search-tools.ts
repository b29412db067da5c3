import { InvalidInputError } from '@km/core';
import type { CollectionSearchTool } from '@km/collections';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { zodOfJsonSchema } from '../json-schema-zod.js';
import { toolErrorOf, type ToolErrorLogger } from '../tool-errors.js';

/** Structured result of a collection search tool: what its `execute` returns. */
export const collectionSearchOutput = {
  results: z
    .array(
      z.object({
        key: z.union([z.string(), z.number()]).describe('Key of the record.'),
        score: z.number().describe("The search score, in the collection's distance convention."),
        record: z.record(z.string(), z.unknown()).describe('The returned properties (dates as ISO-8601 strings, missing values as null).'),
      }),
    )
    .describe('Matching records, best first.'),
};

/**
 * Checks that the search tools' names are unique and clear of `taken` (the memory tools),
 * else `invalid_argument` naming the clash.
 *
 * ```ts
 * checkCollectionToolNames([searchHotels], ['search', 'ask']);
 * ```
 */
export function checkCollectionToolNames(tools: readonly CollectionSearchTool[], taken: readonly string[]): void {
  if (!Array.isArray(tools)) throw new InvalidInputError('invalid_argument', 'collections must be a list of collection search tools');
  const names = new Set(taken);
  for (const tool of tools) {
    if (typeof tool?.name !== 'string' || typeof tool.execute !== 'function' || typeof tool.inputSchema !== 'object') {
      throw new InvalidInputError(
        'invalid_argument',
        'collections must hold collection search tools (see collectionSearchTool in @km/collections)',
      );
    }
    if (tool.inputSchema?.type !== 'object') {
      throw new InvalidInputError(
        'invalid_argument',
        `collection tool "${tool.name}" must take an object (its inputSchema type is not "object")`,
      );
    }
    if (names.has(tool.name)) {
      const what = taken.includes(tool.name) ? 'a memory tool' : 'another collection tool';
      throw new InvalidInputError(
        'invalid_argument',
        `collection tool name "${tool.name}" is already taken by ${what}; give it another name`,
      );
    }
    names.add(tool.name);
  }
}

/**
 * Registers each search tool on the server, read-only: its JSON Schema as the input schema,
 * its results as JSON text plus structured content; bad input and km errors are tool errors.
 *
 * ```ts
 * registerCollectionSearchTools(server, [collectionSearchTool(hotels, { name: 'search_hotels', description: 'Finds hotels.' })]);
 * ```
 */
export function registerCollectionSearchTools(server: McpServer, tools: readonly CollectionSearchTool[], log?: ToolErrorLogger): void {
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: zodOfJsonSchema(tool.inputSchema) as z.ZodType<Record<string, unknown>>,
        outputSchema: collectionSearchOutput,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async (args, extra) => {
        try {
          const output = await tool.execute(args, { signal: extra.signal });
          return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: { ...output } };
        } catch (error) {
          return toolErrorOf(error, tool.name, log);
        }
      },
    );
  }
}
