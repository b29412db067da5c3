import { VectorStore, VectorStoreRetriever } from '@langchain/core/vectorstores';
import { Document } from '@langchain/core/documents';
import { describe, expect, it } from 'vitest';
import { MemoryFilters, isKmError } from '@km/core';
import { KernelMemoryVectorStoreReader, UnsupportedOperationError } from '../src/index.js';
import { INDEX, MEMORY_KINDS, serverlessMemory, useCorpusMemory } from './memories.js';

describe.each(MEMORY_KINDS)('KernelMemoryVectorStoreReader over %s', (kind) => {
  const memory = useCorpusMemory(kind);

  it('similaritySearch returns the k most relevant partitions as Documents', async () => {
    const store = new KernelMemoryVectorStoreReader({ memory: memory(), index: INDEX });
    expect(store).toBeInstanceOf(VectorStore);
    const docs = await store.similaritySearch('distance of the Moon orbit around Earth', 2);
    expect(docs).toHaveLength(2);
    expect(docs[0]?.metadata).toMatchObject({ documentId: 'moon', fileName: 'moon.md', partitionNumber: 0, tags: { team: ['astro'] } });
    expect(docs[0]?.pageContent).toContain('384,400 km');
  });

  it('similaritySearchWithScore gives the relevance as score, most relevant first', async () => {
    const store = new KernelMemoryVectorStoreReader({ memory: memory(), index: INDEX });
    const hits = await store.similaritySearchWithScore('Where does the red color of Mars come from?', 3);
    expect(hits[0]?.[0].metadata.documentId).toBe('mars');
    for (const [doc, score] of hits) expect(score).toBe(doc.metadata.relevance);
    const scores = hits.map(([, score]) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("a call's filter narrows the store's filter (AND), in any of the accepted forms", async () => {
    const ids = async (store: KernelMemoryVectorStoreReader, filter?: KernelMemoryVectorStoreReader['FilterType']) =>
      (await store.similaritySearch('the Moon Mars bread', 10, filter)).map((d) => d.metadata.documentId).sort();
    const all = new KernelMemoryVectorStoreReader({ memory: memory(), index: INDEX });
    expect(await ids(all, MemoryFilters.byTag('topic', 'space'))).toEqual(['mars', 'moon']);
    expect(await ids(all, { team: ['geo'] })).toEqual(['mars']);
    expect(await ids(all, [MemoryFilters.byTag('team', 'astro'), MemoryFilters.byTag('topic', 'cooking')])).toEqual(['bread', 'moon']);
    const space = new KernelMemoryVectorStoreReader({ memory: memory(), index: INDEX, filters: { topic: ['space'] } });
    expect(await ids(space)).toEqual(['mars', 'moon']);
    expect(await ids(space, MemoryFilters.notTag('team', 'astro'))).toEqual(['mars']);
    expect(await ids(space, MemoryFilters.byTag('topic', 'cooking'))).toEqual([]);
  });

  it('asRetriever() returns a LangChain VectorStoreRetriever that honours k and filter', async () => {
    const store = new KernelMemoryVectorStoreReader({ memory: memory(), index: INDEX });
    const retriever = store.asRetriever({ k: 1, filter: MemoryFilters.byTag('topic', 'space') });
    expect(retriever).toBeInstanceOf(VectorStoreRetriever);
    const docs = await retriever.invoke('sourdough bread and the red planet Mars');
    expect(docs.map((d) => d.metadata.documentId)).toEqual(['mars']);
  });
});

describe('KernelMemoryVectorStoreReader write members', () => {
  const store = new KernelMemoryVectorStoreReader({ memory: serverlessMemory() });
  const cases: Record<string, () => Promise<unknown>> = {
    addDocuments: () => store.addDocuments([new Document({ pageContent: 'x' })]),
    addVectors: () => store.addVectors([[1, 0]], [new Document({ pageContent: 'x' })]),
    delete: () => store.delete({ ids: ['x'] }),
    similaritySearchVectorWithScore: () => store.similaritySearchVectorWithScore([1, 0], 1),
    embedQuery: () => store.embeddings.embedQuery('x'),
    embedDocuments: () => store.embeddings.embedDocuments(['x']),
    'asRetriever().addDocuments': () => store.asRetriever().addDocuments([new Document({ pageContent: 'x' })]),
  };
  it.each(Object.keys(cases))('%s throws UnsupportedOperationError', async (name) => {
    const error = await cases[name]?.().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect(isKmError(error) && error.code).toBe('unsupported_operation');
    expect((error as UnsupportedOperationError).operation).toBe(name.replace('asRetriever().', ''));
    expect((error as Error).message).toMatch(/^\[km\] \[langchain\] \w+ is not supported: /);
  });

  it('refuses k that is not a positive integer', async () => {
    await expect(store.similaritySearch('x', 0)).rejects.toThrow(RangeError);
  });
});
