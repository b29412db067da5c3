import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineRecord } from '@km/core';
import { SimpleVectorStore } from '@km/collections';
import { afterAll, beforeAll } from 'vitest';
import { describeVectorStore } from '../src/index.js';

describeVectorStore({ name: 'SimpleVectorStore (in memory)', createStore: async () => new SimpleVectorStore() });

let directory = '';
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'km-conf-vs-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

const openStore = async () => new SimpleVectorStore({ directory, durable: false });

/** Integer keys and storage names unlike the property names, as an existing table would have. */
const Legacy = defineRecord({
  key: { name: 'hotelId', type: 'integer', storageName: 'hotel_id' },
  data: {
    hotelName: { type: 'string', filterable: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true, storageName: 'Rating' },
    opened: { type: 'date', filterable: true, storageName: 'opened_on' },
    tags: { type: 'string[]', filterable: true, storageName: 'tag_list' },
    description: { type: 'string', storageName: 'desc' },
  },
  vectors: { descriptionEmbedding: { dimensions: 6, distance: 'euclidean', storageName: 'desc_vec' } },
});

describeVectorStore({
  name: 'SimpleVectorStore (directory)',
  createStore: openStore,
  // The built-in store has no DDL of its own: another store on the same folder creates the collection.
  existingSchema: {
    definition: Legacy,
    create: async (collection) => {
      const other = await openStore();
      await other.getCollection(collection, Legacy).ensureExists();
      await other.close();
    },
  },
});
