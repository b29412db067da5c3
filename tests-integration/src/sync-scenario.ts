import { HashingEmbeddingGenerator, KernelMemoryBuilder, type SyncReport, type SyncSource, silentLogger, syncDocumentId } from '@km/core';
import { expect } from 'vitest';

/** Writes and deletes the objects of a bucket or container, by key relative to the synced prefix or by full key. */
export interface SyncedStore {
  /** Writes `body` at `key` under the synced prefix. */
  put(key: string, body: string): Promise<void>;
  /** Writes `body` at a full key, outside the synced prefix. */
  putOutside(fullKey: string, body: string): Promise<void>;
  /** Deletes `key` under the synced prefix. */
  remove(key: string): Promise<void>;
}

const TOPICS = ['apples', 'bicycles', 'volcanoes', 'lighthouses', 'glaciers', 'violins'];
// Keys in folders, and one whose name km would refuse as a file name (':', '?', '..'): the sources rename its file.
const keyOf = (n: number) => (n === 4 ? `Q&A: what about ${n}?..md` : n % 3 === 2 ? `nested/deeper/doc-${n}.md` : `doc-${n}.md`);
const counts = (r: SyncReport) => ({
  listed: r.listed,
  added: r.added,
  updated: r.updated,
  unchanged: r.unchanged,
  deleted: r.deleted,
  failed: r.failed,
  complete: r.complete,
});

/**
 * The end-to-end case on a storage source: `memory.sync` of a prefix holding N objects
 * into a `MemoryServerless` on embedded defaults (volatile storage, SimpleVectorDb, hashing
 * embeddings) adds N; after one edit, one deletion and one addition the next sync updates 1,
 * deletes 1 and adds 1; search finds the edit and not the deleted document; a third sync changes
 * nothing. Objects outside the prefix are never synced.
 */
export async function runSyncScenario(store: SyncedStore, source: SyncSource): Promise<void> {
  const memory = new KernelMemoryBuilder().withLogger(silentLogger).withEmbeddingGenerator(new HashingEmbeddingGenerator()).build();
  const index = 'synced';
  const docId = (key: string) => syncDocumentId(source.id, key);
  for (let n = 0; n < TOPICS.length; n++) await store.put(keyOf(n), `Document ${n} of the handbook talks about ${TOPICS[n]}.`);
  await store.putOutside('elsewhere/outside.md', 'This document talks about penguins and is outside the prefix.');

  const first = await memory.sync(source, { index });
  expect(first.failures).toEqual([]);
  expect(counts(first)).toEqual({ listed: 6, added: 6, updated: 0, unchanged: 0, deleted: 0, failed: 0, complete: true });
  expect(first).toMatchObject({ source: source.id, kind: source.kind, index });

  await store.put(keyOf(1), 'Document 1 of the handbook now talks about submarines instead.');
  await store.remove(keyOf(2));
  await store.put('doc-new.md', 'A new document of the handbook talks about kangaroos.');
  const second = await memory.sync(source, { index });
  expect(second.failures).toEqual([]);
  expect(counts(second)).toEqual({ listed: 6, added: 1, updated: 1, unchanged: 4, deleted: 1, failed: 0, complete: true });

  const listed = await memory.listDocuments({ index, limit: 100 });
  const expected = [0, 1, 3, 4, 5].map(keyOf).concat('doc-new.md').map(docId);
  expect(listed.documents.map((d) => d.documentId).sort()).toEqual(expected.sort());

  const edited = await memory.search('submarines', { index, limit: 1, minRelevance: 0 });
  expect(edited.results[0]?.documentId).toBe(docId(keyOf(1)));
  expect(edited.results[0]?.partitions[0]?.text).toContain('submarines');
  expect(edited.results[0]?.partitions[0]?.tags.__sync_item).toEqual([keyOf(1)]);
  const before = await memory.search('bicycles', { index, limit: 10, minRelevance: 0 });
  expect(before.results.flatMap((r) => r.partitions.map((p) => p.text)).join(' ')).not.toContain('bicycles');
  const deleted = await memory.search('volcanoes', { index, limit: 10, minRelevance: 0 });
  expect(deleted.results.map((r) => r.documentId)).not.toContain(docId(keyOf(2)));
  const odd = await memory.search('glaciers', { index, limit: 1, minRelevance: 0 });
  expect(odd.results[0]).toMatchObject({ documentId: docId(keyOf(4)), sourceName: 'Q&A_ what about 4_.md' });
  const added = await memory.search('kangaroos', { index, limit: 1, minRelevance: 0 });
  expect(added.results[0]?.documentId).toBe(docId('doc-new.md'));

  const third = await memory.sync(source, { index });
  expect(counts(third)).toEqual({ listed: 6, added: 0, updated: 0, unchanged: 6, deleted: 0, failed: 0, complete: true });
}
