import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defineRecord, type ITextEmbeddingGenerator, isKmError } from '@km/core';
import { SimpleVectorStore } from '../src/simple-vector-store.js';
import { random } from './seeded-random.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const VOCABULARY = ['sea', 'mountain', 'city', 'quiet', 'pool', 'spa', 'view', 'old', 'modern', 'garden'];

/** A deterministic embedding: how often each vocabulary word occurs in the text. Counts its calls. */
class WordCountEmbeddings implements ITextEmbeddingGenerator {
  readonly maxTokens = 1000;
  readonly dimensions = VOCABULARY.length;
  readonly tokenizer = { countTokens: (text: string) => words(text).length, getTokens: (text: string) => text.split(/(?=\s)/) };
  texts: string[] = [];

  async generateEmbeddings(texts: string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return texts.map((text) => embed(text));
  }
}

const words = (text: string) => text.toLowerCase().match(/[a-z]+/g) ?? [];
function embed(text: string): Float32Array {
  const vector = new Float32Array(VOCABULARY.length);
  for (const word of words(text)) {
    const at = VOCABULARY.indexOf(word);
    if (at >= 0) vector[at]! += 1;
  }
  return vector;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

const Hotel = defineRecord({
  key: 'hotelId',
  data: {
    name: { type: 'string', filterable: true },
    description: { type: 'string' },
    rating: { type: 'number', filterable: true },
    city: { type: 'string', filterable: true, storageName: 'city_name' },
    tags: { type: 'string[]', filterable: true },
    openedAt: { type: 'date', filterable: true, optional: true },
  },
  vectors: { descriptionEmbedding: { dimensions: VOCABULARY.length, distance: 'cosine', embed: 'description' } },
});

/** `count` hotels with descriptions drawn from the vocabulary (seeded), some words outside it. */
function hotelRecords(count: number) {
  const next = random(42);
  const cities = ['Paris', 'Rome', 'Oslo'];
  return Array.from({ length: count }, (_, i) => ({
    hotelId: `hotel-${i}`,
    name: `Hotel ${i}`,
    description: Array.from({ length: 4 }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]).join(' ') + ' with breakfast',
    rating: Math.round(next() * 50) / 10,
    city: cities[i % cities.length]!,
    tags: ['pool', 'spa', 'gym'].filter(() => next() < 0.5),
    openedAt: i % 4 === 0 ? null : new Date(Date.UTC(2020, i % 12, 1)),
  }));
}

describe('SimpleVectorStore end to end', () => {
  it('upserts many records, embedding their descriptions, and finds them by text with a filter', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'km-simple-vs-e2e-'));
    dirs.push(directory);
    const generator = new WordCountEmbeddings();
    const store = new SimpleVectorStore({ directory, durable: false, embeddingGenerator: generator });
    expect(store.capabilities.keyTypes).toEqual(['string', 'integer', 'uuid']);
    const hotels = store.getCollection('hotels', Hotel);
    await hotels.ensureExists();
    const records = hotelRecords(200);
    expect(await hotels.upsert(records)).toEqual(records.map((r) => r.hotelId));
    expect(generator.texts).toHaveLength(200);

    const query = 'quiet sea view';
    const found = await hotels.search(query, { top: 5, filter: { rating: { gte: 3 }, city: { in: ['Paris', 'Oslo'] } } });
    const expected = records
      .filter((r) => r.rating >= 3 && (r.city === 'Paris' || r.city === 'Oslo'))
      .map((r) => ({ id: r.hotelId, score: cosine(embed(query), embed(r.description)) }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, 5);
    expect(expected).toHaveLength(5);
    expect(expected[4]!.score).toBeGreaterThan(0);
    expect(found.map((r) => r.record.hotelId)).toEqual(expected.map((r) => r.id));
    found.forEach((result, i) => expect(result.score).toBeCloseTo(expected[i]!.score, 6));
    expect(found[0]!.record).toEqual(records.find((r) => r.hotelId === expected[0]!.id));
    expect(found[0]!.record).not.toHaveProperty('descriptionEmbedding');
    expect(generator.texts.at(-1)).toBe(query);

    // Paging: skip continues where top stopped.
    const page = await hotels.search(query, { top: 2, skip: 3, filter: { rating: { gte: 3 }, city: { in: ['Paris', 'Oslo'] } } });
    expect(page.map((r) => r.record.hotelId)).toEqual(expected.slice(3, 5).map((r) => r.id));

    // Records read back by key, with their vectors, and deleted.
    const [withVector] = await hotels.getMany(['hotel-7'], { includeVectors: true });
    expect(withVector!.descriptionEmbedding).toEqual(embed(records[7]!.description));
    await hotels.delete(['hotel-7', 'hotel-8']);
    expect(await hotels.getMany(['hotel-6', 'hotel-7', 'hotel-8'])).toEqual([records[6]]);
    await store.close();

    // A new store on the same folder sees the same collection.
    const reopened = new SimpleVectorStore({ directory, embeddingGenerator: new WordCountEmbeddings() });
    expect(await reopened.listCollections()).toEqual(['hotels']);
    const again = reopened.getCollection('hotels', Hotel);
    expect(await again.get('hotel-9')).toEqual(records[9]);
    expect(await again.get('hotel-7')).toBeUndefined();
    const top = await again.search(query, { top: 1, filter: { rating: { gte: 3 }, city: { in: ['Paris', 'Oslo'] } } });
    expect(top[0]!.record.hotelId).toBe(expected[0]!.id);
    await reopened.close();
  });

  it('reads by filter in an order', async () => {
    const store = new SimpleVectorStore({ embeddingGenerator: new WordCountEmbeddings() });
    const hotels = store.getCollection('hotels', Hotel);
    await hotels.ensureExists();
    const records = hotelRecords(30);
    await hotels.upsert(records);
    const found = await hotels.query({
      filter: { tags: { contains: 'pool' } },
      orderBy: [{ property: 'rating', descending: true }],
      top: 5,
    });
    const expected = records
      .filter((r) => r.tags.includes('pool'))
      .sort((a, b) => b.rating - a.rating || (a.hotelId < b.hotelId ? -1 : 1))
      .slice(0, 5);
    expect(found).toEqual(expected);
    await store.close();
  });

  it('keeps an in-memory store per instance, and refuses a collection reopened with another definition', async () => {
    const store = new SimpleVectorStore();
    const Small = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 2, distance: 'euclidean' } } });
    const small = store.getCollection('small', Small);
    await small.ensureExists();
    await small.upsert([
      { n: 1, v: [0, 0] },
      { n: 2, v: [3, 4] },
    ]);
    const [nearest] = await small.search([3, 3], { top: 1 });
    expect(nearest).toEqual({ record: { n: 2 }, score: 1 });
    expect(await small.search([0, 0], { minScore: 4.9 })).toEqual([{ record: { n: 1 }, score: 0 }]);
    expect(await new SimpleVectorStore().listCollections()).toEqual([]);
    const Other = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 3, distance: 'euclidean' } } });
    const error = await store
      .getCollection('small', Other)
      .ensureExists()
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect(String(error)).toMatch(/vector "v" has 2 dimensions, the definition asks for 3/);
    await store.close();
  });
});
