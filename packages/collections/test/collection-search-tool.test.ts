import { describe, expect, it } from 'vitest';
import { defineRecord, type ITextEmbeddingGenerator, isKmError } from '@km/core';
import { collectionSearchTool } from '../src/agent-tools/collection-search-tool.js';
import type { JsonSchema } from '../src/agent-tools/search-tool-schema.js';
import { SimpleVectorStore } from '../src/simple-vector-store.js';

const VOCABULARY = ['sea', 'mountain', 'quiet', 'pool', 'spa', 'city', 'old', 'view'];
const DIMENSIONS = VOCABULARY.length + 1;

/** Deterministic embedding: a constant component (never all zeros) plus the count of each vocabulary word. */
class WordCountEmbeddings implements ITextEmbeddingGenerator {
  readonly maxTokens = 1000;
  readonly dimensions = DIMENSIONS;
  readonly maxBatchSize = 64;
  readonly tokenizer = { countTokens: (text: string) => text.split(/\s+/).length, getTokens: (text: string) => text.split(/(?=\s)/) };
  async generateEmbeddings(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const vector = new Float32Array(DIMENSIONS);
      vector[VOCABULARY.length] = 0.1;
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        const at = VOCABULARY.indexOf(word);
        if (at >= 0) vector[at]! += 1;
      }
      return vector;
    });
  }
}

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

async function hotelsCollection() {
  const store = new SimpleVectorStore({ embeddingGenerator: new WordCountEmbeddings() });
  const hotels = store.getCollection('hotels', Hotel);
  await hotels.ensureExists();
  await hotels.upsert(HOTELS);
  return { store, hotels };
}

async function errorOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (isKmError(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

/** A validator of the JSON Schema keywords the tool uses; returns the problems it finds. */
function validate(schema: JsonSchema, value: unknown, path = 'input'): string[] {
  if (schema.anyOf) return schema.anyOf.some((s) => validate(s, value, path).length === 0) ? [] : [`${path} matches no anyOf branch`];
  const problems: string[] = [];
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (schema.type === 'integer') {
    if (!Number.isInteger(value)) return [`${path} is not an integer`];
  } else if (schema.type && schema.type !== type) return [`${path} is not ${schema.type}`];
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${path} < minimum`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${path} > maximum`);
  }
  if (typeof value === 'string' && schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${path} too short`);
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => problems.push(...validate(schema.items!, item, `${path}[${i}]`)));
  if (type === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) problems.push(`${path}.${name} is missing`);
    if (schema.minProperties !== undefined && Object.keys(object).length < schema.minProperties)
      problems.push(`${path} has too few properties`);
    for (const [name, item] of Object.entries(object)) {
      const sub = schema.properties?.[name];
      if (sub) problems.push(...validate(sub, item, `${path}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${path}.${name} is not allowed`);
    }
  }
  return problems;
}

describe('collectionSearchTool', () => {
  it('describes its input as a JSON Schema with one entry per filterable property', () => {
    const Note = defineRecord({
      key: 'id',
      data: {
        topic: { type: 'string', filterable: true },
        year: { type: 'integer', filterable: true },
        labels: { type: 'string[]', filterable: true },
        text: { type: 'string' },
      },
      vectors: { v: { dimensions: 3, embed: 'text' } },
    });
    const store = new SimpleVectorStore();
    const tool = collectionSearchTool(store.getCollection('notes', Note), {
      name: 'search_notes',
      description: 'Finds notes.',
      maxTop: 10,
    });
    expect(tool.name).toBe('search_notes');
    expect(tool.description).toBe('Finds notes.');
    const string = { type: 'string' };
    const integer = { type: 'integer' };
    const conditions = {
      id: {
        anyOf: [
          string,
          {
            type: 'object',
            properties: { eq: string, ne: string, in: { type: 'array', items: string } },
            additionalProperties: false,
            minProperties: 1,
          },
        ],
      },
      topic: {
        anyOf: [
          string,
          {
            type: 'object',
            properties: { eq: string, ne: string, in: { type: 'array', items: string } },
            additionalProperties: false,
            minProperties: 1,
          },
        ],
      },
      year: {
        anyOf: [
          integer,
          {
            type: 'object',
            properties: {
              eq: integer,
              ne: integer,
              in: { type: 'array', items: integer },
              gt: integer,
              gte: integer,
              lt: integer,
              lte: integer,
            },
            additionalProperties: false,
            minProperties: 1,
          },
        ],
      },
      labels: { type: 'object', properties: { contains: string }, required: ['contains'], additionalProperties: false },
    };
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          description: 'What to look for, in natural language; results are ranked by similarity to it.',
        },
        top: { type: 'integer', minimum: 1, maximum: 10, description: 'How many results to return (default 5, at most 10).' },
        filter: {
          type: 'object',
          description:
            'Conditions the results must all meet. Properties: id (string: eq, ne, in); topic (string: eq, ne, in); year (integer: eq, ne, in, gt, gte, lt, lte); labels (string[]: contains). A property maps to a value (equals) or to an object of operators, e.g. {"<property>": {"gte": 4}}; "in" takes a list of values; "contains" matches a list property holding the value. "or": [{...}, {...}] matches when any of its objects matches; "not": {...} excludes what its object matches.',
          properties: {
            ...conditions,
            or: {
              type: 'array',
              description: 'Matches when any of these objects of conditions matches.',
              items: { type: 'object', properties: conditions, additionalProperties: false },
            },
            not: {
              type: 'object',
              description: 'Excludes the records these conditions match.',
              properties: conditions,
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
      },
      required: ['query'],
      additionalProperties: false,
    });
    // Plain JSON: survives serialisation unchanged.
    expect(JSON.parse(JSON.stringify(tool.inputSchema))).toEqual(tool.inputSchema);
  });

  it('accepts a filter built from its schema and applies it', async () => {
    const { store, hotels } = await hotelsCollection();
    const tool = collectionSearchTool(hotels, { name: 'search_hotels', description: 'Finds hotels.' });
    const filterSchema = tool.inputSchema.properties!.filter!;
    // One condition per property the schema offers, each through its operator branch, with a value of the branch's type.
    const sample: Record<string, unknown> = {
      hotelId: 'h4',
      city: 'Rimini',
      country: 'IT',
      rating: 4.5,
      rooms: 100,
      tags: 'pool',
      openedAt: '2019-01-01',
      petsAllowed: true,
    };
    const filter: Record<string, unknown> = {};
    for (const [name, schema] of Object.entries(filterSchema.properties!)) {
      if (name === 'or' || name === 'not') continue;
      const operators = (schema.anyOf?.[1] ?? schema).properties!;
      const op = 'contains' in operators ? 'contains' : typeof sample[name] === 'number' || name === 'openedAt' ? 'gte' : 'eq';
      filter[name] = { [op]: name === 'rooms' ? 50 : sample[name] };
    }
    filter.not = { rating: { lt: 4 } };
    filter.or = [{ city: 'Rimini' }, { tags: { contains: 'spa' } }];
    expect(Object.keys(filter).sort()).toEqual(
      ['city', 'country', 'hotelId', 'not', 'openedAt', 'or', 'petsAllowed', 'rating', 'rooms', 'tags'].sort(),
    );
    const input = { query: 'quiet sea view', top: 3, filter };
    expect(validate(tool.inputSchema, input)).toEqual([]);
    const { results } = await tool.execute(input);
    expect(results.map((r) => r.key)).toEqual(['h4']);
    // The schema and execute agree on what is refused.
    const wrong = { query: 'x', filter: { rating: { gte: 'four' } } };
    expect(validate(tool.inputSchema, wrong)).not.toEqual([]);
    expect(await errorOf(tool.execute(wrong))).toMatch(/^invalid_filter: .*filter\.rating\.gte must be a number, got "four"/);
    await store.close();
  });

  it('returns the best matches as plain JSON, with dates as ISO strings and no vectors', async () => {
    const { store, hotels } = await hotelsCollection();
    const tool = collectionSearchTool(hotels, {
      name: 'search_hotels',
      description: 'Finds hotels.',
      returnProperties: ['name', 'openedAt', 'tags'],
    });
    const output = await tool.execute({ query: 'sea view pool', top: 2 });
    expect(output.results.map((r) => r.key)).toEqual(['h4', 'h1']);
    expect(output.results[0]).toEqual({
      key: 'h4',
      score: output.results[0]!.score,
      record: { name: 'Lido', openedAt: '2020-01-10T00:00:00.000Z', tags: ['pool'] },
    });
    expect(output.results[0]!.score).toBeGreaterThan(output.results[1]!.score);
    expect(JSON.parse(JSON.stringify(output))).toEqual(output);
    const all = await tool.execute({ query: 'mountain' });
    expect(all.results).toHaveLength(5);
    expect(all.results.find((r) => r.key === 'h3')!.record.openedAt).toBeNull();
    // Default: every data property, never the vector.
    const full = collectionSearchTool(hotels, { name: 'all_props', description: 'All.', top: 1 });
    const [first] = (await full.execute({ query: 'mountain' })).results;
    expect(Object.keys(first!.record).sort()).toEqual([
      'city',
      'country',
      'description',
      'name',
      'openedAt',
      'petsAllowed',
      'rating',
      'rooms',
      'tags',
    ]);
    await store.close();
  });

  it('always ANDs the scope: a model filter, even with or, cannot widen it', async () => {
    const { store, hotels } = await hotelsCollection();
    const scoped = collectionSearchTool(hotels, { name: 'french_hotels', description: 'French hotels.', scope: { country: 'FR' }, top: 5 });
    const unscoped = collectionSearchTool(hotels, { name: 'any_hotels', description: 'Any hotel.', top: 5 });
    const widening = { query: 'sea view pool', filter: { or: [{ country: 'IT' }, { rating: { gte: 0 } }] } };
    expect((await unscoped.execute(widening)).results.map((r) => r.key).sort()).toEqual(['h1', 'h2', 'h3', 'h4', 'h5']);
    const results = (await scoped.execute(widening)).results;
    expect(results.map((r) => r.key).sort()).toEqual(['h1', 'h2', 'h3']);
    expect(results.every((r) => r.record.country === 'FR')).toBe(true);
    expect((await scoped.execute({ query: 'sea', filter: { country: 'IT' } })).results).toEqual([]);
    expect((await scoped.execute({ query: 'sea', filter: { not: { country: 'FR' } } })).results).toEqual([]);
    // Narrowing works.
    const narrowed = await scoped.execute({ query: 'quiet', filter: { rating: { gte: 4.6 }, openedAt: { lt: '2030-01-01' } } });
    expect(narrowed.results.map((r) => r.key)).toEqual([]);
    const quiet = await scoped.execute({ query: 'quiet', filter: { rating: { gte: 4.6 } } });
    expect(quiet.results.map((r) => r.key)).toEqual(['h3']);
    await store.close();
  });

  it('refuses bad input with messages a model can act on', async () => {
    const { store, hotels } = await hotelsCollection();
    const tool = collectionSearchTool(hotels, {
      name: 'search_hotels',
      description: 'Finds hotels.',
      returnProperties: ['name', 'city', 'rating', 'tags'],
      maxTop: 10,
    });
    const cases: Array<[unknown, RegExp]> = [
      ['sea', /^invalid_argument: .*the input must be an object such as \{"query": "..."\}, got "sea"/],
      [{}, /query must be a non-empty string, got nothing/],
      [{ query: '  ' }, /query must be a non-empty string/],
      [{ query: 'sea', limit: 3 }, /unknown property "limit"; it takes "query", "top", "filter"/],
      [{ query: 'sea', top: '3' }, /top must be an integer from 1 to 10, got "3"/],
      [{ query: 'sea', top: 11 }, /top must be an integer from 1 to 10, got 11/],
      [{ query: 'sea', top: 2.5 }, /top must be an integer/],
      [{ query: 'sea', filter: 'rating > 4' }, /^invalid_filter: .*filter must be an object of conditions, got "rating > 4"/],
      [{ query: 'sea', filter: { price: 3 } }, /filter has unknown property "price"; use "hotelId", "city", "rating", "tags", "or", "not"/],
      // country is filterable in the definition but not returned, so the model may not filter on it.
      [{ query: 'sea', filter: { country: 'IT' } }, /filter has unknown property "country"/],
      [
        { query: 'sea', filter: { city: { gte: 'N' } } },
        /filter\.city has operator "gte", which does not apply to a string; use "eq", "ne", "in"/,
      ],
      [{ query: 'sea', filter: { city: { like: 'N%' } } }, /operator "like"/],
      [{ query: 'sea', filter: { city: {} } }, /filter\.city has no operator/],
      [{ query: 'sea', filter: { city: null } }, /filter\.city is null; compare with a value/],
      [{ query: 'sea', filter: { city: ['Nice'] } }, /filter\.city must be a string, got a list/],
      [{ query: 'sea', filter: { rating: { in: 4 } } }, /filter\.rating\.in must be a list of values, got 4/],
      [{ query: 'sea', filter: { rating: { in: [4, 'x'] } } }, /filter\.rating\.in\[1\] must be a number, got "x"/],
      [{ query: 'sea', filter: { tags: 'pool' } }, /filter\.tags is a list; filter it with \{"contains": <a string>\}/],
      [{ query: 'sea', filter: { tags: { contains: 1 } } }, /filter\.tags\.contains must be a string, got 1/],
      [{ query: 'sea', filter: { or: { city: 'Nice' } } }, /filter\.or must be a list of objects of conditions/],
      [{ query: 'sea', filter: { or: [{ or: [] }] } }, /filter\.or\[0\] has unknown property "or" \(or and not may not be nested\)/],
      [{ query: 'sea', filter: { not: { not: { city: 'Nice' } } } }, /filter\.not has unknown property "not"/],
      [{ query: 'sea', filter: { hotelId: 7 } }, /filter\.hotelId must be a string, got 7/],
    ];
    for (const [input, message] of cases) {
      const error = await errorOf(tool.execute(input));
      expect(error, JSON.stringify(input)).toMatch(message);
      expect(error).toMatch(/^invalid_(argument|filter): \[km\] search tool: /);
    }
    const dated = collectionSearchTool(hotels, { name: 'dated', description: 'Dated.' });
    expect(await errorOf(dated.execute({ query: 'sea', filter: { openedAt: { gt: 'last year' } } }))).toMatch(
      /filter\.openedAt\.gt must be an ISO-8601 date or date-time string/,
    );
    expect(await errorOf(dated.execute({ query: 'sea', filter: { rooms: { gt: 1.5 } } }))).toMatch(
      /filter\.rooms\.gt must be an integer, got 1.5/,
    );
    expect(await errorOf(dated.execute({ query: 'sea', filter: { petsAllowed: 'yes' } }))).toMatch(
      /filter\.petsAllowed must be true or false/,
    );
    await store.close();
  });

  it('offers only the key to filter on when no returned property is filterable', async () => {
    const { store, hotels } = await hotelsCollection();
    const tool = collectionSearchTool(hotels, { name: 'names', description: 'Names.', returnProperties: ['name'] });
    expect(Object.keys(tool.inputSchema.properties!.filter!.properties!)).toEqual(['hotelId', 'or', 'not']);
    await store.close();
  });

  it('refuses bad options when the tool is made', async () => {
    const { store, hotels } = await hotelsCollection();
    const make = (options: Record<string, unknown>) => () =>
      collectionSearchTool(hotels, { name: 'search_hotels', description: 'Finds hotels.', ...options } as never);
    expect(make({ name: 'search hotels' })).toThrow(/tool name "search hotels" must be 1 to 64 letters, digits, _ or -/);
    expect(make({ name: 'x'.repeat(65) })).toThrow(/tool name/);
    expect(make({ description: ' ' })).toThrow(/needs a description/);
    expect(make({ maxTop: 1001 })).toThrow(/maxTop must be an integer from 1 to 1000/);
    expect(make({ top: 30 })).toThrow(/top must be an integer from 1 to maxTop \(20\), got 30/);
    expect(make({ returnProperties: ['embedding'] })).toThrow(/embedding is a vector; the tool never returns vectors/);
    expect(make({ returnProperties: ['price'] })).toThrow(/price is not a data property/);
    expect(make({ scope: { price: 3 } })).toThrow(/unknown property "price"/);
    expect(make({ minScore: Number.NaN })).toThrow(/minScore must be a finite number/);
    expect(make({ vectorProperty: 'nope' })).toThrow(/vectorProperty nope is not a vector/);
    const Raw = defineRecord({ key: 'id', vectors: { v: { dimensions: 2 } } });
    expect(() => collectionSearchTool(store.getCollection('raw', Raw), { name: 'raw', description: 'Raw.' })).toThrow(
      /has no embed source/,
    );
    expect(make({ maxTop: 3 })().inputSchema.properties!.top).toMatchObject({
      maximum: 3,
      description: 'How many results to return (default 3, at most 3).',
    });
    await store.close();
  });
});
