import { describe, expect, it } from 'vitest';
import { HashingEmbeddingGenerator, SimpleVectorDb, type ITextEmbeddingGenerator } from '../src/index.js';
import { collect, inMemory } from './helpers.js';

/** HashingEmbeddingGenerator behind a proxy that records the texts of each query-purpose call. */
function countingHashing(): { generator: ITextEmbeddingGenerator; queryCalls: string[][] } {
  const queryCalls: string[][] = [];
  const target = new HashingEmbeddingGenerator();
  const generator = new Proxy(target, {
    get(object, property, receiver) {
      if (property !== 'generateEmbeddings') return Reflect.get(object, property, receiver);
      return (texts: string[], signal?: AbortSignal, options?: { purpose?: 'query' | 'document' }) => {
        if (options?.purpose === 'query') queryCalls.push([...texts]);
        return object.generateEmbeddings(texts, signal);
      };
    },
  });
  return { generator, queryCalls };
}

describe('query embeddings through search', () => {
  it("SimpleVectorDb's getSimilarList embeds a repeated text query once and batches concurrent ones", async () => {
    const { generator, queryCalls } = countingHashing();
    const db = new SimpleVectorDb({ embeddingGenerator: generator });
    const hashing = new HashingEmbeddingGenerator();
    const texts = ['the moon orbits the earth', 'carbon forms diamond', 'volcanoes erupt lava'];
    await db.upsertBatch(
      'docs',
      texts.map((text, i) => ({ id: `r${i}`, vector: hashing.embed(text), tags: {}, payload: { text } })),
    );

    const first = await collect(db.getSimilarList('docs', 'moon orbit', { limit: 1 }));
    const second = await collect(db.getSimilarList('docs', 'moon orbit', { limit: 1 }));
    expect(first[0]![0].id).toBe('r0');
    expect(second).toEqual(first);
    expect(queryCalls).toEqual([['moon orbit']]);

    const concurrent = await Promise.all(['diamond', 'lava', 'earth'].map((q) => collect(db.getSimilarList('docs', q, { limit: 1 }))));
    expect(concurrent.map((found) => found[0]![0].id)).toEqual(['r1', 'r2', 'r0']);
    expect(queryCalls.slice(1)).toEqual([['diamond', 'lava', 'earth']]);
  });
  it('MemoryServerless search embeds a repeated query once and concurrent queries in one call', async () => {
    const { generator, queryCalls } = countingHashing();
    const { memory } = inMemory((b) => b.withEmbeddingGenerator(generator));
    await memory.importText('The Moon is Earth’s only natural satellite.', { documentId: 'moon' });
    await memory.importText('Carbon forms diamond and graphite.', { documentId: 'carbon' });

    const first = await memory.search('natural satellite', { limit: 1 });
    const second = await memory.search('natural satellite', { limit: 1 });
    expect(first.results[0]!.documentId).toBe('moon');
    expect(second.results[0]!.documentId).toBe('moon');
    expect(queryCalls).toEqual([['natural satellite']]);

    const both = await Promise.all([memory.search('diamond', { limit: 1 }), memory.search('graphite', { limit: 1 })]);
    expect(both.map((r) => r.results[0]!.documentId)).toEqual(['carbon', 'carbon']);
    expect(queryCalls.slice(1)).toEqual([['diamond', 'graphite']]);
  });

  it('a MemoryDb with queryCache: false embeds every query', async () => {
    const { generator, queryCalls } = countingHashing();
    const db = new SimpleVectorDb({ embeddingGenerator: generator, queryCache: false });
    await db.upsert('docs', { id: 'a', vector: new HashingEmbeddingGenerator().embed('moon'), tags: {}, payload: {} });
    await collect(db.getSimilarList('docs', 'moon', { limit: 1 }));
    await collect(db.getSimilarList('docs', 'moon', { limit: 1 }));
    expect(queryCalls).toEqual([['moon'], ['moon']]);
  });

  it('MemoryServerless search and ask with withSearchOptions({ queryCache: false }) embed every query', async () => {
    const { generator, queryCalls } = countingHashing();
    const { memory } = inMemory((b) => b.withEmbeddingGenerator(generator).withSearchOptions({ queryCache: false }));
    await memory.importText('The Moon is Earth’s only natural satellite.', { documentId: 'moon' });
    await memory.search('natural satellite', { limit: 1 });
    await memory.search('natural satellite', { limit: 1 });
    await memory.ask('natural satellite');
    expect(queryCalls.filter((texts) => texts.includes('natural satellite'))).toHaveLength(3);
  });

  it('MemoryServerless search with a sized queryCache keeps at most maxEntries query vectors', async () => {
    const { generator, queryCalls } = countingHashing();
    const { memory } = inMemory((b) => b.withEmbeddingGenerator(generator).withSearchOptions({ queryCache: { maxEntries: 1 } }));
    await memory.importText('The Moon is Earth’s only natural satellite.', { documentId: 'moon' });
    for (const query of ['moon', 'satellite', 'moon', 'moon']) await memory.search(query, { limit: 1 });
    expect(queryCalls).toEqual([['moon'], ['satellite'], ['moon']]);
  });
});
