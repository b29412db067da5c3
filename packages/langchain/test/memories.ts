import { afterAll, beforeAll, expect, vi } from 'vitest';
import { Document, HashingEmbeddingGenerator, KernelMemoryBuilder, silentLogger, type IKernelMemory } from '@km/core';
import { MemoryWebClient } from '@km/client';
import { startTestService, type TestService } from '@km/service/testing';

/** The index every test writes to and reads from. */
export const INDEX = 'adapters';

/** Three short documents with user tags; each sentence shares words with one query of the tests. */
export const CORPUS = [
  {
    id: 'moon',
    file: 'moon.md',
    text: "The Moon is Earth's only natural satellite. The Moon orbits Earth at an average distance of 384,400 km.",
    tags: { topic: ['space'], team: ['astro'] },
  },
  {
    id: 'mars',
    file: 'mars.txt',
    text: 'Mars is the fourth planet from the Sun. The red color of Mars comes from iron oxide dust.',
    tags: { topic: ['space'], team: ['geo'] },
  },
  {
    id: 'bread',
    file: 'bread.txt',
    text: 'Sourdough bread rises with wild yeast and lactic acid bacteria. Bake the bread in a hot oven.',
    tags: { topic: ['cooking'] },
  },
] as const;

/** Imports {@link CORPUS} into {@link INDEX} and waits until every document is ready. */
export async function importCorpus(memory: IKernelMemory): Promise<void> {
  for (const doc of CORPUS) {
    const document = new Document(doc.id).addBuffer(doc.file, doc.text);
    for (const [key, values] of Object.entries(doc.tags)) for (const value of values) document.addTag(key, value);
    await memory.importDocument(document, { index: INDEX });
  }
  for (const doc of CORPUS) await waitUntilReady(memory, doc.id);
}

/** Waits (15 s at most) until the document is ready: at once in process, after the queue over HTTP. */
export async function waitUntilReady(memory: IKernelMemory, documentId: string, index = INDEX): Promise<void> {
  await vi.waitFor(async () => expect(await memory.isDocumentReady(documentId, index)).toBe(true), { timeout: 15_000, interval: 30 });
}

/** An in-process memory with the embedded defaults (hashing embeddings, in-memory stores), logging nothing. */
export function serverlessMemory(): IKernelMemory {
  return new KernelMemoryBuilder().withEmbeddingGenerator(new HashingEmbeddingGenerator()).withLogger(silentLogger).build();
}

/** The two memories the adapter is tested on: in process, and a real km service through the web client. */
export const MEMORY_KINDS = ['MemoryServerless', 'MemoryWebClient'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/**
 * Builds a memory of that kind before the tests of the enclosing `describe` and imports the
 * corpus into it; a service started for it is closed after them.
 */
export function useCorpusMemory(kind: MemoryKind): () => IKernelMemory {
  let memory: IKernelMemory | undefined;
  let service: TestService | undefined;
  beforeAll(async () => {
    if (kind === 'MemoryWebClient') {
      service = await startTestService({ logLevel: 'warn' });
      memory = new MemoryWebClient(service.url);
    } else {
      memory = serverlessMemory();
    }
    await importCorpus(memory);
  });
  afterAll(async () => {
    await service?.dispose();
  });
  return () => {
    if (!memory) throw new Error('the memory is not ready yet (use it inside a test)');
    return memory;
  };
}
