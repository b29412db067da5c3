import { defineRecord, HashingEmbeddingGenerator, isKmError, KernelMemoryBuilder, silentLogger } from '@km/core';
import { type CollectionSearchTool, collectionSearchTool, type JsonSchema, SimpleVectorStore } from '@km/collections';
import { VocabularyEmbeddingGenerator } from '@km/conformance';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryMcpServer, READ_TOOLS, zodOfJsonSchema } from '../src/index.js';

const VOCABULARY = ['sea', 'mountain', 'quiet', 'pool', 'spa', 'city', 'old', 'view'];
const DIMENSIONS = VOCABULARY.length + 1; // VocabularyEmbeddingGenerator: one dimension per word, plus a constant one

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string' },
    city: { type: 'string', filterable: true },
    country: { type: 'string', filterable: true },
    rating: { type: 'number', filterable: true },
    rooms: { type: 'integer', filterable: true },
    tags: { type: 'string[]', filterable: true },
    openedAt: { type: 'date', filterable: true, optional: true },
    petsAllowed: { type: 'boolean', filterable: true },
    description: { type: 'string' },
  },
  vectors: { embedding: { dimensions: DIMENSIONS, embed: 'description' } },
});

const HOTELS = [
  {
    hotelId: 'h1',
    name: 'Sea View',
    city: 'Nice',
    country: 'FR',
    rating: 4.5,
    rooms: 40,
    tags: ['pool', 'spa'],
    openedAt: new Date('2015-06-01T00:00:00Z'),
    petsAllowed: true,
    description: 'quiet rooms with a sea view and a pool',
  },
  {
    hotelId: 'h2',
    name: 'Old Town',
    city: 'Paris',
    country: 'FR',
    rating: 3.9,
    rooms: 120,
    tags: ['spa'],
    openedAt: new Date('1998-03-15T00:00:00Z'),
    petsAllowed: false,
    description: 'old city hotel, not quiet',
  },
  {
    hotelId: 'h3',
    name: 'Alpine',
    city: 'Chamonix',
    country: 'FR',
    rating: 4.8,
    rooms: 25,
    tags: [],
    openedAt: null,
    petsAllowed: true,
    description: 'quiet mountain view with a spa',
  },
  {
    hotelId: 'h4',
    name: 'Lido',
    city: 'Rimini',
    country: 'IT',
    rating: 4.9,
    rooms: 60,
    tags: ['pool'],
    openedAt: new Date('2020-01-10T00:00:00Z'),
    petsAllowed: true,
    description: 'sea view sea pool quiet',
  },
  {
    hotelId: 'h5',
    name: 'Duomo',
    city: 'Milan',
    country: 'IT',
    rating: 4.1,
    rooms: 200,
    tags: ['spa'],
    openedAt: new Date('2010-09-01T00:00:00Z'),
    petsAllowed: false,
    description: 'city view, old quarter',
  },
];

interface SearchOutput {
  results: Array<{ key: string; score: number; record: Record<string, unknown> }>;
}

let searchHotels: CollectionSearchTool;
let searchFrance: CollectionSearchTool;

beforeAll(async () => {
  const store = new SimpleVectorStore({ embeddingGenerator: new VocabularyEmbeddingGenerator(VOCABULARY) });
  const hotels = store.getCollection('hotels', Hotel);
  await hotels.ensureExists();
  await hotels.upsert(HOTELS);
  searchHotels = collectionSearchTool(hotels, {
    name: 'search_hotels',
    description: 'Finds hotels by what the guest wants.',
    returnProperties: ['name', 'city', 'country', 'rating', 'rooms', 'tags', 'openedAt', 'petsAllowed'],
  });
  searchFrance = collectionSearchTool(hotels, {
    name: 'search_french_hotels',
    description: 'Finds hotels in France.',
    scope: { country: 'FR' },
    returnProperties: ['name', 'city', 'country'],
  });
});

function memory() {
  return new KernelMemoryBuilder().withEmbeddingGenerator(new HashingEmbeddingGenerator()).withLogger(silentLogger).build();
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function connect(server: McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'km-mcp-test', version: '1.0.0' });
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  clients.push(client);
  await client.listTools(); // the client checks structured results against the output schemas it lists
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function outputOf(result: CallToolResult): SearchOutput {
  if (result.isError) throw new Error(`tool error: ${textOf(result)}`);
  return result.structuredContent as unknown as SearchOutput;
}

/** The listed schema without what zod's JSON Schema writer adds: `$schema`, and safe-integer bounds on unbounded integers. */
function withoutZodAdditions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZodAdditions);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$schema') continue;
    if ((k === 'minimum' && v === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER)) continue;
    copy[k] = withoutZodAdditions(v);
  }
  return copy;
}

async function errorOf(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (e) {
    if (isKmError(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('collection search tools on the MCP server', () => {
  it('lists each collection tool next to the memory tools, read-only too, with the tool JSON Schema as input schema', async () => {
    const client = await connect(createMemoryMcpServer(memory(), { readOnly: true, collections: [searchHotels, searchFrance] }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, 'search_french_hotels', 'search_hotels'].sort());
    const listed = tools.find((t) => t.name === 'search_hotels')!;
    expect(listed.description).toBe('Finds hotels by what the guest wants.');
    expect(withoutZodAdditions(listed.inputSchema)).toEqual(searchHotels.inputSchema);
    expect(listed.annotations?.readOnlyHint).toBe(true);
    expect(listed.outputSchema?.type).toBe('object');
    expect(Object.keys(listed.outputSchema?.properties ?? {})).toEqual(['results']);
  });

  it('answers a call with a filter with the matching records, as JSON text and structured content', async () => {
    const client = await connect(createMemoryMcpServer(memory(), { collections: [searchHotels] }));
    const result = await call(client, 'search_hotels', {
      query: 'sea view pool',
      top: 5,
      filter: { rating: { gte: 4.5 }, tags: { contains: 'pool' } },
    });
    const output = outputOf(result);
    expect(output.results.map((r) => r.key)).toEqual(['h4', 'h1']);
    expect(output.results[0]!.record).toEqual({
      name: 'Lido',
      city: 'Rimini',
      country: 'IT',
      rating: 4.9,
      rooms: 60,
      tags: ['pool'],
      openedAt: '2020-01-10T00:00:00.000Z',
      petsAllowed: true,
    });
    expect(output.results[0]!.score).toBeGreaterThan(output.results[1]!.score);
    expect(JSON.parse(textOf(result))).toEqual(output);

    const byDate = outputOf(await call(client, 'search_hotels', { query: 'hotel', filter: { openedAt: { lt: '2012-01-01' } } }));
    expect(byDate.results.map((r) => r.key).sort()).toEqual(['h2', 'h5']);
  });

  it("passes the request's abort signal to the search", async () => {
    const signals: Array<AbortSignal | undefined> = [];
    const spy: CollectionSearchTool = {
      ...searchHotels,
      execute: (input, options) => {
        signals.push(options?.signal);
        return searchHotels.execute(input, options);
      },
    };
    const client = await connect(createMemoryMcpServer(undefined, { collections: [spy] }));
    outputOf(await call(client, 'search_hotels', { query: 'sea' }));
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
  });

  it('keeps a scoped tool inside its scope whatever filter the model sends', async () => {
    const client = await connect(createMemoryMcpServer(memory(), { collections: [searchFrance] }));
    const widen = outputOf(
      await call(client, 'search_french_hotels', { query: 'sea view', top: 10, filter: { or: [{ hotelId: 'h4' }, { hotelId: 'h5' }] } }),
    );
    expect(widen.results).toEqual([]);
    const negate = outputOf(await call(client, 'search_french_hotels', { query: 'sea view', top: 10, filter: { not: { city: 'Nice' } } }));
    expect(negate.results.map((r) => r.key).sort()).toEqual(['h2', 'h3']);
    expect(negate.results.every((r) => r.record.country === 'FR')).toBe(true);
  });

  it('reports bad input as a tool error and keeps serving', async () => {
    const client = await connect(createMemoryMcpServer(memory(), { collections: [searchHotels] }));
    const wrongType = await call(client, 'search_hotels', { query: 'sea', filter: { rating: { gte: 'high' } } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toContain('Invalid arguments for tool search_hotels');
    expect(textOf(wrongType)).toContain('filter.rating');

    const unknownProperty = await call(client, 'search_hotels', { query: 'sea', filter: { stars: 5 } });
    expect(unknownProperty.isError).toBe(true);
    expect(textOf(unknownProperty)).toContain('stars');

    const badDate = await call(client, 'search_hotels', { query: 'sea', filter: { openedAt: { gte: 'last spring' } } });
    expect(badDate.isError).toBe(true);
    expect(textOf(badDate)).toMatch(/^Invalid filter: search tool: filter\.openedAt\.gte must be an ISO-8601 date/);

    const next = outputOf(await call(client, 'search_hotels', { query: 'mountain', top: 1 }));
    expect(next.results.map((r) => r.key)).toEqual(['h3']);
  });

  it('refuses a collection tool whose name a memory tool or another collection tool has, or whose input is not an object', async () => {
    const named = (name: string): CollectionSearchTool => ({ ...searchHotels, name });
    expect(await errorOf(() => createMemoryMcpServer(memory(), { readOnly: true, collections: [named('import_text')] }))).toMatch(
      /^invalid_argument: .*"import_text" is already taken by a memory tool/,
    );
    expect(await errorOf(() => createMemoryMcpServer(memory(), { collections: [searchHotels, named('search_hotels')] }))).toMatch(
      /^invalid_argument: .*"search_hotels" is already taken by another collection tool/,
    );
    const notAnObject = { ...named('search_text'), inputSchema: { type: 'string' } } as CollectionSearchTool;
    expect(await errorOf(() => createMemoryMcpServer(memory(), { collections: [notAnObject] }))).toMatch(
      /^invalid_argument: .*"search_text" must take an object/,
    );
  });

  it('serves collection tools alone when given no memory, and needs one or the other', async () => {
    const client = await connect(createMemoryMcpServer(undefined, { collections: [searchHotels] }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_hotels']);
    expect(client.getInstructions()).toBe('Searches over collections of records. search_hotels searches a collection of records.');
    expect(outputOf(await call(client, 'search_hotels', { query: 'old city', top: 1 })).results[0]!.key).toBe('h2');
    expect(await errorOf(() => createMemoryMcpServer(undefined, {}))).toMatch(
      /^invalid_argument: .*needs a memory, collection search tools/,
    );
  });
});

describe('zodOfJsonSchema', () => {
  it('accepts and refuses what the JSON Schema does', () => {
    const schema = zodOfJsonSchema(searchHotels.inputSchema);
    expect(
      schema.safeParse({ query: 'sea', top: 3, filter: { rooms: { in: [40, 60] }, petsAllowed: true, or: [{ city: 'Nice' }] } }).success,
    ).toBe(true);
    expect(schema.safeParse({}).success).toBe(false); // query is required
    expect(schema.safeParse({ query: '' }).success).toBe(false); // minLength
    expect(schema.safeParse({ query: 'sea', top: 21 }).success).toBe(false); // maximum (maxTop 20)
    expect(schema.safeParse({ query: 'sea', top: 2.5 }).success).toBe(false); // integer
    expect(schema.safeParse({ query: 'sea', extra: 1 }).success).toBe(false); // additionalProperties: false
    expect(schema.safeParse({ query: 'sea', filter: { rating: {} } }).success).toBe(false); // minProperties
    expect(schema.safeParse({ query: 'sea', filter: { tags: 'pool' } }).success).toBe(false); // a list takes {contains}
    expect(schema.safeParse({ query: 'sea', filter: { or: [{ or: [] }] } }).success).toBe(false); // or is not nested
  });

  it('refuses keywords outside the subset instead of dropping them', async () => {
    const withPattern = { type: 'object', properties: { q: { type: 'string', pattern: '^a' } } } as unknown as JsonSchema;
    expect(await errorOf(() => zodOfJsonSchema(withPattern))).toMatch(
      /^invalid_argument: \[km\] inputSchema\.properties\.q uses "pattern"/,
    );
    const withRef = { type: 'object', properties: { q: { $ref: '#/x' } } } as unknown as JsonSchema;
    expect(await errorOf(() => zodOfJsonSchema(withRef))).toMatch(/uses "\$ref"/);
    expect(await errorOf(() => zodOfJsonSchema({ type: 'array' }))).toMatch(/is an array without items/);
  });
});
