import { normalizeIndexName, type IKernelMemory, type MemoryFilter, type TagCollection } from '@km/core';
import type { Tool, ToolExecutionOptions } from 'ai';
import { toMemoryCitations, type MemoryCitation } from './memory-citation.js';
import { scopedFilters, tagConditions, type TagFilterInput } from './scope-filters.js';
import {
  askMemoryInputSchema,
  importTextInputSchema,
  searchMemoryInputSchema,
  type AskMemoryInput,
  type ImportTextInput,
  type SearchMemoryInput,
} from './tool-schemas.js';

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  /** Index the tools read and write. @default the memory's default index (`default`) */
  index?: string;
  /** Leave out the `importText` tool, so a model can only read. @default false */
  readOnly?: boolean;
  /** Keep passages at least this relevant (cosine similarity). @default the memory's own default */
  minRelevance?: number;
  /** Most passages one search returns; a model may ask for fewer, never more. @default 5 */
  limit?: number;
  /**
   * What the model may read: searches and questions only see records matching these filters
   * (OR across the list, AND inside one). The model's own tag filter narrows this, never widens it.
   * @default everything in the index
   */
  filters?: readonly MemoryFilter[];
  /** Tags added to every text the model imports (e.g. the user it belongs to). @default none */
  tags?: TagCollection;
}

/** What the AI SDK passes to a tool's `execute` besides the input (`toolCallId`, `messages`, `abortSignal`, `context`). */
export type ToolCallOptions = ToolExecutionOptions<Record<string, unknown>>;

/** A tool whose `execute` always resolves with one result (it never streams). */
export type MemoryTool<INPUT, OUTPUT> = {
  execute(input: INPUT, options: ToolCallOptions): Promise<OUTPUT>;
} & Tool<INPUT, OUTPUT>;

/** Result of the `searchMemory` tool. */
export interface SearchMemoryOutput {
  query: string;
  /** True when no passage matched. */
  noResult: boolean;
  /** Matching passages, most relevant first. */
  results: MemoryCitation[];
}

/** Result of the `askMemory` tool. */
export interface AskMemoryOutput {
  question: string;
  /** The answer, written only from the stored documents (quoted sentences when km has no text generator). */
  answer: string;
  /** True when the documents hold no answer. */
  noResult: boolean;
  noResultReason?: string;
  /** The passages the answer was drawn from, most relevant first. */
  citations: MemoryCitation[];
}

/** Result of the `importText` tool. */
export interface ImportTextOutput {
  documentId: string;
  index: string;
}

/** The read-only tools: `searchMemory` and `askMemory`. */
export type ReadOnlyMemoryTools = {
  searchMemory: MemoryTool<SearchMemoryInput, SearchMemoryOutput>;
  askMemory: MemoryTool<AskMemoryInput, AskMemoryOutput>;
};

/** Every tool: `searchMemory`, `askMemory` and `importText`. */
export type MemoryTools = ReadOnlyMemoryTools & {
  importText: MemoryTool<ImportTextInput, ImportTextOutput>;
};

/** Default of {@link MemoryToolsOptions.limit}. */
export const DEFAULT_TOOL_LIMIT = 5;

/**
 * AI SDK tools over a km memory (in process or over HTTP): `searchMemory` returns passages with
 * citations, `askMemory` an answer written from the documents with its citations, and
 * `importText` (unless `readOnly`) stores text for later.
 *
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * const result = await generateText({
 *   model,
 *   tools: memoryTools(memory, { index: 'handbook', readOnly: true }),
 *   stopWhen: stepCountIs(3),
 *   prompt: 'How many vacation days do new employees get?',
 * });
 * ```
 */
export function memoryTools(memory: IKernelMemory, options: MemoryToolsOptions & { readOnly: true }): ReadOnlyMemoryTools;
export function memoryTools(memory: IKernelMemory, options?: MemoryToolsOptions & { readOnly?: false }): MemoryTools;
export function memoryTools(memory: IKernelMemory, options?: MemoryToolsOptions): MemoryTools | ReadOnlyMemoryTools;
export function memoryTools(memory: IKernelMemory, options: MemoryToolsOptions = {}): MemoryTools | ReadOnlyMemoryTools {
  const limit = options.limit ?? DEFAULT_TOOL_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`[km] [ai-sdk] limit must be a positive integer, got ${limit}`);
  const where = {
    ...(options.index !== undefined ? { index: options.index } : {}),
    ...(options.minRelevance !== undefined ? { minRelevance: options.minRelevance } : {}),
  };

  const searchMemory: MemoryTool<SearchMemoryInput, SearchMemoryOutput> = {
    description:
      'Search the stored documents for passages about a topic. Returns the most relevant passages with their source (document id, file name, page) and relevance. Use it to find facts before answering.',
    inputSchema: searchMemoryInputSchema,
    async execute(input: SearchMemoryInput, { abortSignal }: ToolCallOptions) {
      const filters = scopedFilters(options.filters, input.tags);
      const result = await memory.search(input.query, {
        ...where,
        ...(filters ? { filters } : {}),
        limit: Math.min(input.limit ?? limit, limit),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      const results = toMemoryCitations(result.results).slice(0, limit);
      return { query: input.query, noResult: results.length === 0, results };
    },
  };

  const askMemory: MemoryTool<AskMemoryInput, AskMemoryOutput> = {
    description:
      'Answer a question from the stored documents only. Returns the answer and the passages it comes from (document id, file name, page, relevance); says so when the documents do not hold the answer.',
    inputSchema: askMemoryInputSchema,
    async execute(input: AskMemoryInput, { abortSignal }: ToolCallOptions) {
      const filters = scopedFilters(options.filters, input.tags);
      const answer = await memory.ask(input.question, {
        ...where,
        ...(filters ? { filters } : {}),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      return {
        question: answer.question,
        answer: answer.text,
        noResult: answer.noResult,
        ...(answer.noResultReason ? { noResultReason: answer.noResultReason } : {}),
        citations: toMemoryCitations(answer.relevantSources),
      };
    },
  };

  if (options.readOnly) return { searchMemory, askMemory };

  const importText: MemoryTool<ImportTextInput, ImportTextOutput> = {
    description:
      'Store a text in memory so that it can be searched and asked about later. Returns the document id. Importing the same document id again replaces that document.',
    inputSchema: importTextInputSchema,
    async execute(input: ImportTextInput, { abortSignal }: ToolCallOptions) {
      const tags = importTags(options.tags, input.tags);
      const documentId = await memory.importText(input.text, {
        ...(options.index !== undefined ? { index: options.index } : {}),
        ...(input.documentId !== undefined ? { documentId: input.documentId } : {}),
        tags,
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      return { documentId, index: normalizeIndexName(options.index) };
    },
  };

  return { searchMemory, askMemory, importText };
}

/** The configured tags plus the model's, each value once. */
function importTags(configured: TagCollection | undefined, requested: TagFilterInput | undefined): TagCollection {
  const tags: TagCollection = {};
  const add = (key: string, value: string | null) => {
    const values = (tags[key] ??= []);
    if (!values.includes(value)) values.push(value);
  };
  for (const [key, values] of Object.entries(configured ?? {})) for (const value of values) add(key, value);
  for (const c of tagConditions(requested)) add(c.key, c.value);
  return tags;
}
