import { InvalidInputError, type KeyValue, type RecordDefinition, type VectorStoreFilter } from '@km/core';
import { compileFilter, type ResolvedDataProperty, type ResolvedVectorProperty } from '@km/core/connector';
import { MAX_SEARCH_TOP } from '../search-options.js';
import type { IVectorStoreCollection } from '../vector-store-types.js';
import { type JsonValue, toJsonRecord } from './json-record.js';
import { parseSearchToolInput } from './search-tool-input.js';
import { type JsonSchema, searchToolInputSchema, toolFilterProperties } from './search-tool-schema.js';

/** Default number of results of a search tool. */
export const DEFAULT_TOOL_TOP = 5;
/** Default most results a model may ask a search tool for. */
export const DEFAULT_TOOL_MAX_TOP = 20;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Options of {@link collectionSearchTool}. */
export interface CollectionSearchToolOptions<R> {
  /** The tool's name, as the model calls it: 1 to 64 letters, digits, `_` or `-`. */
  name: string;
  /** What the tool finds and when to use it, for the model. */
  description: string;
  /** Results when the model does not say. @default 5 */
  top?: number;
  /** Most results the model may ask for (at most 1000). @default 20 */
  maxTop?: number;
  /** Always ANDed with the model's filter: the model can narrow the search, never widen it. */
  scope?: VectorStoreFilter<R>;
  /** Data properties returned (and offered to filter on, when filterable). @default every data property (never vectors) */
  returnProperties?: readonly Extract<keyof R, string>[];
  /** The vector searched; required when the definition has several. Its `embed` source must be set (the query is text). */
  vectorProperty?: Extract<keyof R, string>;
  /** Drop results scoring worse than this (see `VectorSearchOptions.minScore`). */
  minScore?: number;
}

/** One result of a search tool: plain JSON. */
export interface CollectionSearchToolResult {
  readonly key: KeyValue;
  readonly score: number;
  /** The returned properties; dates as ISO-8601 strings, missing values as null. */
  readonly record: Record<string, JsonValue>;
}

/** What a search tool's `execute` returns: JSON-serialisable. */
export interface CollectionSearchToolOutput {
  readonly results: CollectionSearchToolResult[];
}

/**
 * A search over a collection that a model can call: a name, a description, a JSON Schema of
 * its input, and `execute`, which checks the input itself. Framework-neutral: hand the parts to
 * MCP's `registerTool`, the AI SDK's `tool({ inputSchema: jsonSchema(...) })` or LangChain's
 * `tool(...)`.
 */
export interface CollectionSearchTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Checks the input (`InvalidInputError` with a message the model can act on), searches, returns JSON. */
  execute(input: unknown, options?: { signal?: AbortSignal }): Promise<CollectionSearchToolOutput>;
}

/**
 * Makes a search over a typed collection into a tool a model can call: the model sends a
 * text `query`, optionally `top` and a `filter` on the properties it is shown; the tool ANDs
 * the application's `scope`, searches, and returns the results as JSON (key, score, the
 * `returnProperties`; never vectors).
 *
 * ```ts
 * const searchHotels = collectionSearchTool(hotels, {
 *   name: 'search_hotels',
 *   description: 'Finds hotels by what the guest wants; filter by city, rating or tags.',
 *   scope: { country: 'FR' },               // the model never sees other countries
 *   returnProperties: ['name', 'city', 'rating', 'description'],
 * });
 * const { results } = await searchHotels.execute({ query: 'quiet, by the sea', filter: { rating: { gte: 4 } } });
 * ```
 */
export function collectionSearchTool<R>(
  collection: IVectorStoreCollection<R>,
  options: CollectionSearchToolOptions<R>,
): CollectionSearchTool {
  const definition = collection.definition as RecordDefinition<unknown>;
  const { name, description } = options;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw invalid(`tool name ${JSON.stringify(name)} must be 1 to 64 letters, digits, _ or -`);
  }
  if (typeof description !== 'string' || description.trim().length === 0) throw invalid(`tool ${name} needs a description`);
  const limits = checkLimits(options.top, options.maxTop);
  const vectorProperty = searchedVector(definition, options.vectorProperty);
  if (options.minScore !== undefined && (typeof options.minScore !== 'number' || !Number.isFinite(options.minScore))) {
    throw invalid(`minScore must be a finite number, got ${String(options.minScore)}`);
  }
  const returned = returnedProperties(definition, options.returnProperties);
  const scope = options.scope === undefined ? undefined : structuredClone(options.scope); // later changes by the caller do not widen it
  compileFilter(definition, scope); // a bad scope is the application's mistake: refuse it now, not at the model's first call
  const filterProperties = toolFilterProperties(definition, new Set(returned.map((p) => p.name)));
  const inputSchema = searchToolInputSchema(filterProperties, limits);
  const keyName = definition.key.name;

  return {
    name,
    description,
    inputSchema,
    async execute(input, executeOptions = {}) {
      const parsed = parseSearchToolInput(input, filterProperties, limits);
      const filter = scope && parsed.filter ? { and: [scope, parsed.filter] } : (scope ?? parsed.filter);
      const hits = await collection.search(parsed.query, {
        top: parsed.top,
        filter: filter as VectorStoreFilter<R> | undefined,
        vectorProperty: vectorProperty.name as Extract<keyof R, string>,
        signal: executeOptions.signal,
        ...(options.minScore === undefined ? {} : { minScore: options.minScore }),
      });
      return {
        results: hits.map(({ record, score }) => {
          const values = record as Record<string, unknown>;
          return { key: values[keyName] as KeyValue, score, record: toJsonRecord(values, returned) };
        }),
      };
    },
  };
}

function checkLimits(top: unknown, maxTop: unknown): { top: number; maxTop: number } {
  const most = maxTop ?? DEFAULT_TOOL_MAX_TOP;
  if (typeof most !== 'number' || !Number.isInteger(most) || most < 1 || most > MAX_SEARCH_TOP) {
    throw invalid(`maxTop must be an integer from 1 to ${MAX_SEARCH_TOP}, got ${String(most)}`);
  }
  const preferred = top ?? Math.min(DEFAULT_TOOL_TOP, most);
  if (typeof preferred !== 'number' || !Number.isInteger(preferred) || preferred < 1 || preferred > most) {
    throw invalid(`top must be an integer from 1 to maxTop (${most}), got ${String(preferred)}`);
  }
  return { top: preferred, maxTop: most };
}

function searchedVector(definition: RecordDefinition<unknown>, name: unknown): ResolvedVectorProperty {
  const names = definition.vectors.map((v) => v.name).join(', ');
  let vector: ResolvedVectorProperty | undefined;
  if (name === undefined) {
    if (definition.vectors.length !== 1)
      throw invalid(`the definition has several vectors (${names}); say which to search with vectorProperty`);
    vector = definition.vectors[0];
  } else {
    vector = definition.vectors.find((v) => v.name === name);
    if (!vector) throw invalid(`vectorProperty ${String(name)} is not a vector of the definition; its vectors: ${names}`);
  }
  if (vector!.embed === undefined) {
    throw invalid(`vector ${vector!.name} has no embed source, so the model's text query cannot be embedded for it`);
  }
  return vector!;
}

function returnedProperties(definition: RecordDefinition<unknown>, names: readonly string[] | undefined): ResolvedDataProperty[] {
  if (names === undefined) return [...definition.data];
  if (!Array.isArray(names)) throw invalid('returnProperties must be a list of data property names');
  const dataNames = definition.data.map((p) => p.name).join(', ');
  return [...new Set(names)].map((name) => {
    const property = definition.data.find((p) => p.name === name);
    if (property) return property;
    if (definition.vectors.some((v) => v.name === name))
      throw invalid(`returnProperties: ${name} is a vector; the tool never returns vectors`);
    throw invalid(`returnProperties: ${String(name)} is not a data property of the definition; its data properties: ${dataNames}`);
  });
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message);
}
