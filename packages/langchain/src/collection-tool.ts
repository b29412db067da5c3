import type { CollectionSearchTool } from '@km/collections';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import type { JsonSchema7Type } from '@langchain/core/utils/json_schema';

/**
 * A LangChain structured tool over a typed collection's search tool (`collectionSearchTool` of
 * @km/core): its name, description and JSON Schema (LangChain validates the model's arguments
 * against it), and a function that runs the search and returns the JSON text of
 * `{ results: [{ key, score, record }] }`. Input the search tool refuses throws its
 * `InvalidInputError` (an agent's tool node hands the message to the model); the run's abort
 * signal stops the search.
 *
 * ```ts
 * const searchHotels = collectionSearchTool(hotels, { name: 'search_hotels', description: 'Finds hotels.' });
 * const tool = collectionTool(searchHotels);
 * const json = await tool.invoke({ query: 'quiet, by the sea', filter: { rating: { gte: 4 } } });
 * const agentModel = chatModel.bindTools([tool]);
 * ```
 */
export function collectionTool(searchTool: CollectionSearchTool): DynamicStructuredTool {
  return tool(
    async (input: unknown, config) => {
      const signal = config?.signal;
      const output = await searchTool.execute(input, signal ? { signal } : {});
      return JSON.stringify(output);
    },
    {
      name: searchTool.name,
      description: searchTool.description,
      schema: searchTool.inputSchema as JsonSchema7Type,
    },
  ) as DynamicStructuredTool;
}
