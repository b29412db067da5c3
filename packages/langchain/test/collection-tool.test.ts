import { defineRecord, isKmError } from '@km/core';
import { type CollectionSearchTool, collectionSearchTool, SimpleVectorStore } from '@km/collections';
import { VocabularyEmbeddingGenerator } from '@km/conformance';
import type { ToolMessage } from '@langchain/core/messages';
import { ToolInputParsingException } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectionTool } from '../src/index.js';

const VOCABULARY = ['sea', 'mountain', 'quiet', 'pool', 'spa', 'city', 'old', 'view'];
const DIMENSIONS = VOCABULARY.length + 1; // VocabularyEmbeddingGenerator: one dimension per word, plus a constant one

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string' },
    country: { type: 'string', filterable: true },
    rating: { type: 'number', filterable: true },
    openedAt: { type: 'date', filterable: true, optional: true },
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
    openedAt: new Date('2015-06-01T00:00:00Z'),
    description: 'quiet rooms with a sea view and a pool',
  },
  {
    hotelId: 'h2',
    name: 'Old Town',
    country: 'FR',
    rating: 3.9,
    openedAt: new Date('1998-03-15T00:00:00Z'),
    description: 'old city hotel, not quiet',
  },
  { hotelId: 'h3', name: 'Alpine', country: 'FR', rating: 4.8, description: 'quiet mountain view with a spa' },
  {
    hotelId: 'h4',
    name: 'Lido',
    country: 'IT',
    rating: 4.9,
    openedAt: new Date('2020-01-10T00:00:00Z'),
    description: 'sea view sea pool quiet',
  },
];

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
    returnProperties: ['name', 'country', 'rating', 'openedAt'],
  });
  searchFrance = collectionSearchTool(hotels, {
    name: 'search_french_hotels',
    description: 'Finds hotels in France.',
    scope: { country: 'FR' },
    returnProperties: ['name', 'country'],
  });
});

describe('collectionTool (LangChain)', () => {
  it('is a structured tool with the search tool name, description and JSON Schema, as a model is offered it', () => {
    const tool = collectionTool(searchHotels);
    expect(tool.name).toBe('search_hotels');
    expect(tool.description).toBe('Finds hotels.');
    expect(tool.schema).toEqual(searchHotels.inputSchema);
    expect(convertToOpenAITool(tool).function).toMatchObject({ name: 'search_hotels', parameters: searchHotels.inputSchema });
  });

  it('invoked with model-style input, returns the JSON text of the matching records', async () => {
    const json = await collectionTool(searchHotels).invoke({ query: 'sea view pool', filter: { rating: { gte: 4.6 } }, top: 2 });
    expect(typeof json).toBe('string');
    expect(JSON.parse(json)).toEqual({
      results: [
        {
          key: 'h4',
          score: expect.any(Number),
          record: { name: 'Lido', country: 'IT', rating: 4.9, openedAt: '2020-01-10T00:00:00.000Z' },
        },
        { key: 'h3', score: expect.any(Number), record: { name: 'Alpine', country: 'FR', rating: 4.8, openedAt: null } },
      ],
    });
  });

  it('invoked with a tool call, answers with a tool message holding the JSON', async () => {
    const message = (await collectionTool(searchHotels).invoke({
      type: 'tool_call',
      id: 'call-1',
      name: 'search_hotels',
      args: { query: 'mountain', top: 1 },
    })) as ToolMessage;
    expect(message.tool_call_id).toBe('call-1');
    expect(JSON.parse(message.content as string).results.map((r: { key: string }) => r.key)).toEqual(['h3']);
  });

  it('keeps a scoped search inside its scope', async () => {
    const json = await collectionTool(searchFrance).invoke({
      query: 'sea view',
      top: 10,
      filter: { or: [{ hotelId: 'h4' }, { country: 'IT' }] },
    });
    expect(JSON.parse(json)).toEqual({ results: [] });
  });

  it('refuses input against the schema, and input the search tool refuses, with a readable error', async () => {
    const tool = collectionTool(searchHotels);
    await expect(tool.invoke({ query: 'sea', filter: { stars: 5 } })).rejects.toBeInstanceOf(ToolInputParsingException);
    const error = await tool.invoke({ query: 'sea', filter: { openedAt: { gte: 'last spring' } } }).catch((e: unknown) => e);
    expect(isKmError(error) && error.code).toBe('invalid_filter');
    expect((error as Error).message).toContain('filter.openedAt.gte must be an ISO-8601 date');
    expect(JSON.parse(await tool.invoke({ query: 'old city', top: 1 })).results[0].key).toBe('h2');
  });

  it("passes the run's abort signal to the search", async () => {
    const signals: Array<AbortSignal | undefined> = [];
    const spy: CollectionSearchTool = {
      ...searchHotels,
      execute: (input, options) => (signals.push(options?.signal), searchHotels.execute(input, options)),
    };
    const controller = new AbortController();
    await collectionTool(spy).invoke({ query: 'sea' }, { signal: controller.signal });
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    controller.abort();
    expect(signals[0]!.aborted).toBe(true);
  });
});
