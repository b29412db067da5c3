import { defineRecord, isKmError } from '@km/core';
import { type CollectionSearchTool, collectionSearchTool, type CollectionSearchToolOutput, SimpleVectorStore } from '@km/collections';
import { VocabularyEmbeddingGenerator } from '@km/conformance';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectionTool, collectionTools, type ToolCallOptions } from '../src/index.js';

const VOCABULARY = ['sea', 'mountain', 'quiet', 'pool', 'spa', 'city', 'old', 'view'];
const DIMENSIONS = VOCABULARY.length + 1; // VocabularyEmbeddingGenerator: one dimension per word, plus a constant one

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string' },
    country: { type: 'string', filterable: true },
    rating: { type: 'number', filterable: true },
    tags: { type: 'string[]', filterable: true },
    description: { type: 'string' },
  },
  vectors: { embedding: { dimensions: DIMENSIONS, embed: 'description' } },
});

const HOTELS = [
  {
    hotelId: 'h1',
    name: 'Sea View',
    country: 'FR',
    rating: 4.5,
    tags: ['pool', 'spa'],
    description: 'quiet rooms with a sea view and a pool',
  },
  { hotelId: 'h2', name: 'Old Town', country: 'FR', rating: 3.9, tags: ['spa'], description: 'old city hotel, not quiet' },
  { hotelId: 'h3', name: 'Alpine', country: 'FR', rating: 4.8, tags: [], description: 'quiet mountain view with a spa' },
  { hotelId: 'h4', name: 'Lido', country: 'IT', rating: 4.9, tags: ['pool'], description: 'sea view sea pool quiet' },
];

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const callOptions: ToolCallOptions = { toolCallId: 'direct', messages: [], context: {} };

let searchHotels: CollectionSearchTool;
let searchFrance: CollectionSearchTool;

beforeAll(async () => {
  const store = new SimpleVectorStore({ embeddingGenerator: new VocabularyEmbeddingGenerator(VOCABULARY) });
  const hotels = store.getCollection('hotels', Hotel);
  await hotels.ensureExists();
  await hotels.upsert(HOTELS);
  searchHotels = collectionSearchTool(hotels, {
    name: 'search_hotels',
    description: 'Finds hotels.',
    returnProperties: ['name', 'rating', 'tags'],
  });
  searchFrance = collectionSearchTool(hotels, {
    name: 'search_french_hotels',
    description: 'Finds hotels in France.',
    scope: { country: 'FR' },
    returnProperties: ['name', 'country'],
  });
});

/**
 * A scripted model (it stands for the LLM only): first calls `toolName` with `input`, then
 * answers with the name of the first record the tool returned, or with the error it got.
 */
function scriptedModel(toolName: string, input: unknown): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const [result] = options.prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).filter((p) => p.type === 'tool-result');
      if (!result) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      }
      const text =
        result.output.type === 'json'
          ? `Try ${(result.output.value as unknown as CollectionSearchToolOutput).results[0]?.record.name}`
          : `Tool failed: ${result.output.type === 'error-text' ? result.output.value : result.output.type}`;
      return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
}

describe('collectionTool', () => {
  it('executes the search with the model-style input and returns the JSON results', async () => {
    const tool = collectionTool(searchHotels);
    expect(tool.description).toBe('Finds hotels.');
    const output = await tool.execute(
      { query: 'sea view pool', filter: { tags: { contains: 'pool' }, rating: { gte: 4.6 } } },
      callOptions,
    );
    expect(output.results).toEqual([{ key: 'h4', score: expect.any(Number), record: { name: 'Lido', rating: 4.9, tags: ['pool'] } }]);
  });

  it('keeps a scoped search inside its scope', async () => {
    const output = await collectionTool(searchFrance).execute(
      { query: 'sea view', top: 10, filter: { or: [{ hotelId: 'h4' }, { country: 'IT' }] } },
      callOptions,
    );
    expect(output.results).toEqual([]);
  });

  it('refuses bad input with the search tool message', async () => {
    const error = await collectionTool(searchHotels)
      .execute({ query: 'sea', filter: { stars: 5 } } as never, callOptions)
      .catch((e: unknown) => e);
    expect(isKmError(error) && error.code).toBe('invalid_filter');
    expect((error as Error).message).toContain('unknown property "stars"');
  });

  it('passes the AI SDK abort signal to the search', async () => {
    const error = await collectionTool(searchHotels)
      .execute({ query: 'sea' }, { ...callOptions, abortSignal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(isKmError(error) && error.code).toBe('aborted');
  });

  it('in a generateText round the model sees the JSON Schema, calls the tool, and answers from its results', async () => {
    const model = scriptedModel('search_hotels', { query: 'quiet mountain', top: 1 });
    const result = await generateText({
      model,
      tools: collectionTools([searchHotels, searchFrance]),
      stopWhen: stepCountIs(2),
      prompt: 'Somewhere quiet in the mountains?',
    });
    const offered = model.doGenerateCalls[0]?.tools ?? [];
    expect(offered.map((t) => t.name).sort()).toEqual(['search_french_hotels', 'search_hotels']);
    const search = offered.find((t) => t.name === 'search_hotels');
    expect(search).toMatchObject({ type: 'function', description: 'Finds hotels.' });
    expect(search && 'inputSchema' in search ? search.inputSchema : undefined).toEqual(searchHotels.inputSchema);

    const [call] = result.steps[0]?.toolResults ?? [];
    expect(call?.toolName).toBe('search_hotels');
    expect((call!.output as CollectionSearchToolOutput).results.map((r) => r.key)).toEqual(['h3']);
    expect(result.text).toBe('Try Alpine');
  });

  it('in a generateText round a refused input reaches the model as a tool error it can read', async () => {
    const model = scriptedModel('search_hotels', { query: 'sea', filter: { rating: { above: 4 } } });
    const result = await generateText({ model, tools: collectionTools([searchHotels]), stopWhen: stepCountIs(2), prompt: 'Good hotels?' });
    expect(result.steps[0]?.content.some((p) => p.type === 'tool-error')).toBe(true);
    expect(result.text).toMatch(/^Tool failed: .*filter\.rating has operator "above"/);
  });

  it('collectionTools refuses two tools of the same name', () => {
    let error: unknown;
    try {
      collectionTools([searchHotels, { ...searchFrance, name: 'search_hotels' }]);
    } catch (e) {
      error = e;
    }
    expect(isKmError(error) && error.code).toBe('invalid_argument');
    expect((error as Error).message).toContain('"search_hotels"');
  });
});
