import { InvalidInputError } from '@km/core';
import type { CollectionSearchTool, CollectionSearchToolOutput } from '@km/collections';
import { type JSONSchema7, jsonSchema, tool } from 'ai';
import type { MemoryTool, ToolCallOptions } from './memory-tools.js';

/** What a model sends to a collection tool; the search tool checks it (its JSON Schema has the details). */
export interface CollectionToolInput {
  query: string;
  top?: number;
  filter?: Record<string, unknown>;
}

/** An AI SDK tool over a collection search: JSON results (key, score, record), best first. */
export type CollectionTool = MemoryTool<CollectionToolInput, CollectionSearchToolOutput>;

/**
 * An AI SDK tool over a typed collection's search tool (`collectionSearchTool` of @km/collections):
 * its description, its JSON Schema as the input schema, and `execute`, which checks the input
 * (a bad one throws `InvalidInputError`, which the AI SDK hands to the model as a tool error)
 * and returns `{ results }`. The AI SDK's abort signal stops the search.
 *
 * ```ts
 * const searchHotels = collectionSearchTool(hotels, { name: 'search_hotels', description: 'Finds hotels.' });
 * const result = await generateText({ model, tools: { search_hotels: collectionTool(searchHotels) }, prompt: 'A quiet hotel by the sea?' });
 * ```
 */
export function collectionTool(searchTool: CollectionSearchTool): CollectionTool {
  return tool({
    description: searchTool.description,
    inputSchema: jsonSchema<CollectionToolInput>(searchTool.inputSchema as JSONSchema7),
    execute: (input: CollectionToolInput, { abortSignal }: ToolCallOptions) =>
      searchTool.execute(input, abortSignal ? { signal: abortSignal } : {}),
  }) as CollectionTool;
}

/**
 * AI SDK tools over several search tools, keyed by their names (as the model calls them);
 * two with the same name are refused (`invalid_argument`). Spread it next to `memoryTools`.
 *
 * ```ts
 * const tools = { ...memoryTools(memory, { readOnly: true }), ...collectionTools([searchHotels, searchRooms]) };
 * ```
 */
export function collectionTools(searchTools: readonly CollectionSearchTool[]): Record<string, CollectionTool> {
  const tools: Record<string, CollectionTool> = {};
  for (const searchTool of searchTools) {
    if (Object.hasOwn(tools, searchTool.name)) {
      throw new InvalidInputError('invalid_argument', `two collection tools are named "${searchTool.name}"; give each its own name`);
    }
    tools[searchTool.name] = collectionTool(searchTool);
  }
  return tools;
}
