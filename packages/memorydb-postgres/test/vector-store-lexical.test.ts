import type { PGlite } from '@electric-sql/pglite';
import { defineRecord, isKmError } from '@km/core';
import { SimpleVectorStore } from '@km/collections';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresVectorStore } from '../src/index.js';
import { freshPglite } from './fresh-pglite.js';

// Typed collections get the memory DB's lexical search: a fullText property has its generated,
// GIN-indexed tsvector column, searched with the same BM25-like score.
let pglite: PGlite;
let store: PostgresVectorStore;
const warnings: string[] = [];
beforeAll(async () => {
  pglite = await freshPglite();
  store = new PostgresVectorStore({ pglite, logger: { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} } });
});
afterAll(async () => {
  await store.close();
  await pglite.close();
});

const Note = defineRecord({
  key: 'id',
  data: {
    body: { type: 'string', fullText: true },
    labels: { type: 'string[]', filterable: true },
  },
  vectors: { embedding: { dimensions: 2 } },
});

describe('PostgresVectorStore lexical search', () => {
  it('finds records by the words of a fullText property, best first, with a score in [0, 1), under a filter, paged', async () => {
    expect(store.capabilities.lexicalSearch).toBe(true);
    const notes = store.getCollection('notes', Note);
    await notes.ensureExists();
    await notes.upsert([
      { id: 'a', body: 'boats in the harbour during a storm', labels: ['sea'], embedding: [1, 0] },
      { id: 'b', body: 'a storm over the mountains', labels: ['land'], embedding: [0, 1] },
      { id: 'c', body: 'a calm afternoon', labels: ['sea'], embedding: [1, 1] },
    ]);
    const hits = await notes.lexicalSearch('storm harbour', { top: 5 });
    expect(hits.map((h) => h.record.id)).toEqual(['a', 'b']);
    for (const { score } of hits) expect(score > 0 && score < 1).toBe(true);
    expect((await notes.lexicalSearch('storm', { filter: { labels: { contains: 'land' } } })).map((h) => h.record.id)).toEqual(['b']);
    expect((await notes.lexicalSearch('storm harbour', { top: 1, skip: 1 })).map((h) => h.record.id)).toEqual(['b']);
    const { rows } = await pglite.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'notes'`);
    expect(rows.some((r) => r.indexdef.includes('gin (body_tsv)'))).toBe(true);
    expect(rows.some((r) => r.indexdef.includes('gin (labels)'))).toBe(true);
  });

  it('filters on properties whose storage names are also names inside the ranking SQL (v, term, idf, km_query)', async () => {
    const Tagged = defineRecord({
      key: 'id',
      data: {
        body: { type: 'string', fullText: true },
        v: { type: 'string', filterable: true },
        term: { type: 'string', filterable: true },
        idf: { type: 'number', filterable: true },
      },
      vectors: { embedding: { dimensions: 2 } },
    });
    const notes = store.getCollection('tagged', Tagged);
    await notes.ensureExists();
    await notes.upsert([
      { id: 'a', body: 'storm at sea', v: 'x', term: 'one', idf: 1, embedding: [1, 0] },
      { id: 'b', body: 'storm on land', v: 'y', term: 'two', idf: 2, embedding: [0, 1] },
    ]);
    expect((await notes.lexicalSearch('storm', { filter: { v: 'y' } })).map((h) => h.record.id)).toEqual(['b']);
    expect((await notes.lexicalSearch('storm', { filter: { term: 'one', idf: 1 } })).map((h) => h.record.id)).toEqual(['a']);
  });

  it('a missing collection finds nothing, without a warning', async () => {
    warnings.length = 0;
    expect(await store.getCollection('no-such-notes', Note).lexicalSearch('storm')).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('a store without lexical search refuses with unsupported_operation; a definition without fullText with invalid_argument', async () => {
    const simple = new SimpleVectorStore();
    expect(simple.capabilities.lexicalSearch).toBe(false);
    await expect(simple.getCollection('notes', Note).lexicalSearch('storm')).rejects.toSatisfy((e) =>
      isKmError(e, 'unsupported_operation'),
    );
    const Plain = defineRecord({ key: 'id', data: { body: { type: 'string' } }, vectors: { embedding: { dimensions: 2 } } });
    await expect(store.getCollection('notes', Plain).lexicalSearch('storm')).rejects.toSatisfy((e) => isKmError(e, 'invalid_argument'));
  });
});
