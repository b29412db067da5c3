import { KernelMemoryBuilder, silentLogger } from '@km/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createDefaultEmbeddingGenerator, UniversalSentenceEncoderGenerator } from '../src/index.js';

describe('createDefaultEmbeddingGenerator', () => {
  const found = createDefaultEmbeddingGenerator();
  afterAll(() => found.close());

  it('gives the offline Universal Sentence Encoder lite, for applications to choose explicitly', async () => {
    await found.ready();
    expect(found.constructor.name).toBe('UniversalSentenceEncoderGenerator');
    expect(found.modelName).toBe('local/universal-sentence-encoder-lite');
    expect(found.dimensions).toBe(512);
    expect((await found.generateEmbeddings(['hello']))[0]).toHaveLength(512);
  });
});

describe('MemoryServerless on the local model', () => {
  const embeddings = new UniversalSentenceEncoderGenerator({ workers: 2 });
  afterAll(() => embeddings.close());

  it('finds a document by meaning, with no word in common with the question', async () => {
    const memory = new KernelMemoryBuilder().withLogger(silentLogger).withEmbeddingGenerator(embeddings).build();
    await memory.importText('Our office dog, a golden retriever, loves long walks in the park.', { documentId: 'pets' });
    await memory.importText('Invoices must be paid within thirty days of receipt.', { documentId: 'billing' });
    await memory.importText('The espresso machine on the third floor is out of order.', { documentId: 'kitchen' });
    const result = await memory.search('Which puppy enjoys strolling outdoors?', { limit: 1, minRelevance: 0 });
    expect(result.results[0]?.documentId).toBe('pets');
    const coffee = await memory.search('broken coffee maker', { limit: 1, minRelevance: 0 });
    expect(coffee.results[0]?.documentId).toBe('kitchen');
  });
});
