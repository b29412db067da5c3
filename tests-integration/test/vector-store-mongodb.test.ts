import { describeVectorStore } from '@km/conformance';
import { defineRecord } from '@km/core';
import { MongoDbVectorStore, VECTOR_INDEX_NAME } from '@km/memorydb-mongodb';
import { MongoClient } from 'mongodb';
import { afterAll } from 'vitest';
import { provisionBackend } from '../src/provision-search-backend.js';

// The typed vector store on MongoDB with vector search: KM_TEST_MONGODB_URL (Atlas, or
// `docker run -p 27017:27017 mongodb/mongodb-atlas-local` with `?directConnection=true`), or an
// atlas-local container when a runtime answers. Collections get their own prefix.
const backend = await provisionBackend({
  name: 'mongodb',
  envVar: 'KM_TEST_MONGODB_URL',
  wanted: 'a MongoDB with vector search (Atlas, or mongodb/mongodb-atlas-local with ?directConnection=true)',
  image: 'mongodb/mongodb-atlas-local:8.0',
  port: 27017,
  wait: (Wait) => Wait.forHealthCheck().withStartupTimeout(180_000),
  url: (host, port) => `mongodb://${host}:${port}/?directConnection=true`,
});
const database = 'kmtest';
const prefix = 'kmvstest-';
const url = 'url' in backend ? backend.url : '';
const admin = 'url' in backend ? new MongoClient(url) : undefined;
afterAll(async () => {
  await admin?.close();
  if ('stop' in backend) await backend.stop();
});

/** A collection and search index made with the driver itself, with other field names and an integer `_id`. */
const Item = defineRecord({
  key: { name: 'sku', type: 'integer', storageName: '_id' },
  data: {
    title: { type: 'string', filterable: true, storageName: 'item_title' },
    price: { type: 'number', filterable: true, storageName: 'unit_price' },
    labels: { type: 'string[]', filterable: true, storageName: 'item_labels' },
    note: { type: 'string', optional: true, storageName: 'free_text' },
  },
  vectors: { look: { dimensions: 4, distance: 'euclidean', storageName: 'look_vec' } },
});

async function createNatively(collection: string): Promise<void> {
  const db = admin!.db(database);
  await db.createCollection(`${prefix}${collection}`);
  await db.collection(`${prefix}${collection}`).createSearchIndex({
    name: VECTOR_INDEX_NAME,
    type: 'vectorSearch',
    definition: {
      fields: [
        { type: 'vector', path: 'look_vec', numDimensions: 4, similarity: 'euclidean' },
        { type: 'filter', path: '_id' },
        { type: 'filter', path: 'item_title' },
        { type: 'filter', path: 'unit_price' },
        { type: 'filter', path: 'item_labels' },
      ],
    },
  });
}

if ('skip' in backend) console.log(`[km] skipped mongodb vector store (${backend.name}): ${backend.skip}`);
describeVectorStore({
  name: `mongodb, ${backend.name}`,
  skip: 'skip' in backend ? backend.skip : false,
  createStore: async () => new MongoDbVectorStore({ url, database, collectionPrefix: prefix }),
  existingSchema: { definition: Item, create: createNatively },
  // Search indexes lag writes (as in the memory-DB suite of this backend).
  visibilityTimeoutMs: 30_000,
});
