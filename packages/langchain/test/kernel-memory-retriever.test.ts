import { BaseRetriever } from '@langchain/core/retrievers';
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
import { describe, expect, it } from 'vitest';
import { MemoryFilters, isKmError } from '@km/core';
import { KernelMemoryRetriever, type KernelMemoryDocument } from '../src/index.js';
import { INDEX, MEMORY_KINDS, serverlessMemory, useCorpusMemory } from './memories.js';

describe.each(MEMORY_KINDS)('KernelMemoryRetriever over %s', (kind) => {
  const memory = useCorpusMemory(kind);

  it('returns Documents of partitions with their metadata, most relevant first', async () => {
    const retriever = new KernelMemoryRetriever({ memory: memory(), index: INDEX });
    expect(retriever).toBeInstanceOf(BaseRetriever);
    expect(retriever.lc_namespace).toEqual(['langchain', 'retrievers', 'kernel_memory']);
    const docs = await retriever.invoke('distance of the Moon orbit around Earth');
    expect(docs.length).toBe(3);
    expect(docs[0]?.pageContent).toContain('384,400 km');
    expect(docs[0]?.metadata).toMatchObject({
      documentId: 'moon',
      fileName: 'moon.md',
      index: INDEX,
      link: expect.stringMatching(/^adapters\/moon\//),
      partitionNumber: 0,
      relevance: expect.any(Number),
      tags: { topic: ['space'], team: ['astro'] },
      sourceUrl: expect.any(String),
      lastUpdate: expect.any(String),
    });
    expect(docs[0]?.metadata).not.toHaveProperty('page');
    expect(docs[0]?.id).toBe(`${docs[0]?.metadata.link}#0`);
    const relevances = docs.map((d) => d.metadata.relevance);
    expect(relevances).toEqual([...relevances].sort((a, b) => b - a));
    for (const d of docs) expect(Object.keys(d.metadata.tags).some((k) => k.startsWith('__'))).toBe(false);
  });

  it('limit caps the documents; minRelevance drops the less relevant', async () => {
    const all = await new KernelMemoryRetriever({ memory: memory(), index: INDEX }).invoke('the Moon orbit');
    expect(all.length).toBe(3);
    const two = await new KernelMemoryRetriever({ memory: memory(), index: INDEX, limit: 2 }).invoke('the Moon orbit');
    expect(two.map((d) => d.metadata.documentId)).toEqual(all.slice(0, 2).map((d) => d.metadata.documentId));
    const [first, second] = all.map((d) => d.metadata.relevance);
    const floor = ((first ?? 0) + (second ?? 0)) / 2;
    const top = await new KernelMemoryRetriever({ memory: memory(), index: INDEX, minRelevance: floor }).invoke('the Moon orbit');
    expect(top.map((d) => d.metadata.documentId)).toEqual([all[0]?.metadata.documentId]);
  });

  it('filters narrow the results: a MemoryFilter, a list (OR), the wire form and NOT', async () => {
    const ids = async (filters: ConstructorParameters<typeof KernelMemoryRetriever>[0]['filters']) =>
      (await new KernelMemoryRetriever({ memory: memory(), index: INDEX, filters }).invoke('the Moon Mars bread'))
        .map((d) => d.metadata.documentId)
        .sort();
    expect(await ids(MemoryFilters.byTag('topic', 'space'))).toEqual(['mars', 'moon']);
    expect(await ids([MemoryFilters.byTag('team', 'geo'), MemoryFilters.byTag('topic', 'cooking')])).toEqual(['bread', 'mars']);
    expect(await ids({ topic: ['space'], team: ['astro'] })).toEqual(['moon']);
    expect(await ids({ '!topic': ['space'] })).toEqual(['bread']);
    expect(await ids(MemoryFilters.byTag('topic', 'none'))).toEqual([]);
  });

  it('works as the first step of a RunnableSequence', async () => {
    const retriever = new KernelMemoryRetriever({ memory: memory(), index: INDEX, limit: 2 });
    const formatSources = RunnableLambda.from((docs: KernelMemoryDocument[]) =>
      docs.map((d) => `${d.metadata.fileName}#${d.metadata.partitionNumber}: ${d.pageContent}`).join('\n'),
    );
    const chain = RunnableSequence.from([retriever, formatSources]);
    const out = await chain.invoke('Where does the red color of Mars come from?');
    const lines = out.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^mars\.txt#0: Mars is the fourth planet from the Sun\. The red color of Mars comes from iron oxide dust\.\s*$/,
    );
  });
});

describe('KernelMemoryRetriever options', () => {
  it('refuses a limit that is not a positive integer, and a malformed filter with invalid_filter', () => {
    expect(() => new KernelMemoryRetriever({ memory: serverlessMemory(), limit: 0 })).toThrow(RangeError);
    let code: string | undefined;
    try {
      new KernelMemoryRetriever({ memory: serverlessMemory(), filters: { topic: [42 as unknown as string] } });
    } catch (e) {
      code = isKmError(e) ? e.code : String(e);
    }
    expect(code).toBe('invalid_filter');
  });
});
