import { describe, expect, it } from 'vitest';
import {
  KmRecordLayout,
  VectorStoreMemoryDbDriver,
  type DriverRecordQuery,
  type StorageRecord,
  type VectorStoreDriver,
} from '../src/connector.js';
import { IndexNotFoundError, KmError } from '../src/index.js';

const layout = new KmRecordLayout();
const row = (id: string): StorageRecord => ({ id, tags: [], payload: '{}', content: '' });

/** A store whose `queryPages` logs what it produces and can be told to lose the collection. */
function pagedStore(pages: string[][], options: { loseAfter?: number } = {}) {
  const log: string[] = [];
  const queries: DriverRecordQuery[] = [];
  let queryCalls = 0;
  const store: VectorStoreDriver = {
    name: 'fake',
    keyTypes: ['string'],
    distances: ['cosine'],
    listCollections: async () => ['km-docs'],
    collectionExists: async (name) => name === 'km-docs',
    createCollection: async () => {},
    deleteCollection: async () => {},
    upsert: async () => {},
    get: async () => [],
    delete: async () => {},
    search: async () => [],
    vectorDimensions: async (name) => (name === 'km-docs' ? 3 : undefined),
    query: async () => {
      queryCalls++;
      return pages.flat().map(row);
    },
    async *queryPages(name, _definition, query) {
      queries.push(query);
      try {
        for (const [i, page] of pages.entries()) {
          if (options.loseAfter !== undefined && i >= options.loseAfter) {
            throw new KmError('collection_not_found', `collection "${name}" does not exist`, { connector: 'fake' });
          }
          log.push(`page ${i + 1}`);
          yield page.map(row);
        }
      } finally {
        log.push('closed');
      }
    },
  };
  return { store, log, queries, queryCalls: () => queryCalls };
}

describe('VectorStoreMemoryDbDriver.list over queryPages', () => {
  it('yields the first page before the store reads the second', async () => {
    const { store, log, queries, queryCalls } = pagedStore([['a', 'b'], ['c'], ['d']]);
    const driver = new VectorStoreMemoryDbDriver(store, layout);
    const seen: string[] = [];
    for await (const record of driver.list('docs', { filters: [], limit: undefined, withEmbeddings: true })) {
      seen.push(record.id);
      if (seen.length === 1) expect(log).toEqual(['page 1']);
      if (seen.length === 2) expect(log).toEqual(['page 1']);
      if (seen.length === 3) expect(log).toEqual(['page 1', 'page 2']);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect(log).toEqual(['page 1', 'page 2', 'page 3', 'closed']);
    expect(queryCalls()).toBe(0);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatchObject({
      orderBy: [{ storageName: 'id', descending: false }],
      limit: Number.MAX_SAFE_INTEGER,
      includeVectors: true,
    });
  });

  it('passes the limit through and closes the store iteration when the caller stops early', async () => {
    const { store, log, queries } = pagedStore([['a', 'b'], ['c'], ['d']]);
    const driver = new VectorStoreMemoryDbDriver(store, layout);
    for await (const record of driver.list('docs', { filters: [], limit: 3, withEmbeddings: false })) {
      if (record.id === 'a') break;
    }
    expect(log).toEqual(['page 1', 'closed']);
    expect(queries[0]).toMatchObject({ limit: 3, includeVectors: false });
  });

  it('a collection lost while listing is IndexNotFoundError, raised during iteration', async () => {
    const { store } = pagedStore([['a', 'b'], ['c']], { loseAfter: 1 });
    const driver = new VectorStoreMemoryDbDriver(store, layout);
    const seen: string[] = [];
    const failure = await (async () => {
      try {
        for await (const record of driver.list('docs', { filters: [], limit: undefined, withEmbeddings: false })) seen.push(record.id);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(seen).toEqual(['a', 'b']);
    expect(failure).toBeInstanceOf(IndexNotFoundError);
    expect((failure as IndexNotFoundError).cause).toBeInstanceOf(KmError);
  });

  it('a missing index is IndexNotFoundError before the store is asked', async () => {
    const { store, queries } = pagedStore([['a']]);
    const driver = new VectorStoreMemoryDbDriver(store, layout);
    await expect(async () => {
      for await (const _ of driver.list('other', { filters: [], limit: undefined, withEmbeddings: false })) void _;
    }).rejects.toBeInstanceOf(IndexNotFoundError);
    expect(queries).toHaveLength(0);
  });

  it('without queryPages it lists with query, as before', async () => {
    const { store, queryCalls } = pagedStore([['a', 'b'], ['c']]);
    const { queryPages: _, ...withoutPages } = store;
    const driver = new VectorStoreMemoryDbDriver(withoutPages as VectorStoreDriver, layout);
    const seen: string[] = [];
    for await (const record of driver.list('docs', { filters: [], limit: undefined, withEmbeddings: false })) seen.push(record.id);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(queryCalls()).toBe(1);
  });

  it('a store with queryPages and no query can back a memory DB', () => {
    const { store } = pagedStore([]);
    const { query: _, ...pagesOnly } = store;
    expect(() => new VectorStoreMemoryDbDriver(pagesOnly as VectorStoreDriver, layout)).not.toThrow();
    const { queryPages: __, ...neither } = pagesOnly as VectorStoreDriver;
    expect(() => new VectorStoreMemoryDbDriver(neither as VectorStoreDriver, layout)).toThrow(/cannot list records/);
  });
});
