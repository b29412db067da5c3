import { describeVectorStore } from '@km/conformance';
import { defineRecord } from '@km/core';
import { QdrantVectorStore } from '@km/memorydb-qdrant';
import { afterAll } from 'vitest';
import { provisionHttpBackend } from '../src/provision-search-backend.js';

// The typed vector store on Qdrant: KM_TEST_QDRANT_URL (e.g. `docker run -p 6333:6333
// qdrant/qdrant:v1.15.0`), or a container when a runtime answers. Collections get their own
// prefix so a shared server stays clean.
const backend = await provisionHttpBackend({
  name: 'qdrant',
  label: 'Qdrant',
  envVar: 'KM_TEST_QDRANT_URL',
  image: 'qdrant/qdrant:v1.15.0',
  port: 6333,
  readyPath: '/readyz',
});
const prefix = 'kmvstest-';
const url = 'url' in backend ? backend.url : '';
const apiKey = process.env.KM_TEST_QDRANT_API_KEY;
afterAll(async () => {
  if ('stop' in backend) await backend.stop();
});

/** A collection made by Qdrant's own API, with other vector and payload names and integer point ids, as an application may have. */
const Item = defineRecord({
  key: { name: 'sku', type: 'integer', storageName: 'item_no' },
  data: {
    title: { type: 'string', filterable: true, storageName: 'item_title' },
    stock: { type: 'integer', filterable: true, storageName: 'in_stock' },
    labels: { type: 'string[]', filterable: true, storageName: 'item_labels' },
    note: { type: 'string', optional: true, storageName: 'free_text' },
  },
  vectors: {
    look: { dimensions: 4, distance: 'euclidean', storageName: 'look_vec' },
    text: { dimensions: 3, distance: 'dot', storageName: 'text_vec' },
  },
});

async function createNatively(collection: string): Promise<void> {
  const response = await fetch(`${url}/collections/${prefix}${collection}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'api-key': apiKey } : {}) },
    body: JSON.stringify({ vectors: { look_vec: { size: 4, distance: 'Euclid' }, text_vec: { size: 3, distance: 'Dot' } } }),
  });
  if (!response.ok) throw new Error(`Qdrant refused the collection: ${response.status} ${await response.text()}`);
}

if ('skip' in backend) console.log(`[km] skipped qdrant vector store (${backend.name}): ${backend.skip}`);
describeVectorStore({
  name: `qdrant, ${backend.name}`,
  skip: 'skip' in backend ? backend.skip : false,
  createStore: async () => new QdrantVectorStore({ url, ...(apiKey ? { apiKey } : {}), collectionPrefix: prefix }),
  existingSchema: { definition: Item, create: createNatively },
});
