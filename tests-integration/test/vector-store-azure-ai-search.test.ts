import { describeVectorStore } from '@km/conformance';
import { defineRecord } from '@km/core';
import { AzureAiSearchVectorStore } from '@km/memorydb-azure-ai-search';
import { afterAll } from 'vitest';

// Azure AI Search has no emulator: the suite runs against a real service when
// KM_TEST_AZURE_SEARCH_ENDPOINT and KM_TEST_AZURE_SEARCH_API_KEY (an admin key) are set, and skips
// with one line otherwise. Collections get a per-run prefix; whatever a run leaves under it is
// deleted at the end, so a shared (billed) service stays clean.
// KM_TEST_AZURE_AI_SEARCH_ENDPOINT / _API_KEY are accepted too.
const endpoint = process.env.KM_TEST_AZURE_SEARCH_ENDPOINT ?? process.env.KM_TEST_AZURE_AI_SEARCH_ENDPOINT;
const apiKey = process.env.KM_TEST_AZURE_SEARCH_API_KEY ?? process.env.KM_TEST_AZURE_AI_SEARCH_API_KEY;
const prefix = `kmvst${Date.now().toString(36)}-`;
const skip =
  endpoint && apiKey
    ? false
    : 'set KM_TEST_AZURE_SEARCH_ENDPOINT and KM_TEST_AZURE_SEARCH_API_KEY to an Azure AI Search service (there is no emulator)';

/** An index made with the SDK itself, with other field names and an integer key (as its text). */
const Item = defineRecord({
  key: { name: 'sku', type: 'integer', storageName: 'item_no' },
  data: {
    title: { type: 'string', filterable: true, storageName: 'item_title' },
    price: { type: 'number', filterable: true, storageName: 'unit_price' },
    labels: { type: 'string[]', filterable: true, storageName: 'item_labels' },
    note: { type: 'string', optional: true, storageName: 'free_text' },
  },
  vectors: { look: { dimensions: 4, distance: 'euclidean', storageName: 'look_vec' } },
});

const API = 'api-version=2024-07-01';

/** Creates the index with the REST API itself (its own DDL), in the service's wire format. */
async function createNatively(collection: string): Promise<void> {
  const name = `${prefix}${collection}`;
  const response = await fetch(`${endpoint}/indexes('${name}')?${API}`, {
    method: 'PUT',
    headers: { 'api-key': apiKey!, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      fields: [
        { name: 'item_no', type: 'Edm.String', key: true, filterable: true },
        { name: 'item_title', type: 'Edm.String', filterable: true, searchable: true },
        { name: 'unit_price', type: 'Edm.Double', filterable: true, sortable: true },
        { name: 'item_labels', type: 'Collection(Edm.String)', filterable: true },
        { name: 'free_text', type: 'Edm.String' },
        { name: 'look_vec', type: 'Collection(Edm.Single)', searchable: true, dimensions: 4, vectorSearchProfile: 'items' },
      ],
      vectorSearch: {
        algorithms: [{ name: 'items-hnsw', kind: 'hnsw', hnswParameters: { metric: 'euclidean' } }],
        profiles: [{ name: 'items', algorithm: 'items-hnsw' }],
      },
    }),
  });
  if (!response.ok) throw new Error(`creating index ${name} failed: ${response.status} ${await response.text()}`);
}

const createStore = async () => new AzureAiSearchVectorStore({ endpoint: endpoint!, apiKey: apiKey!, collectionPrefix: prefix });

if (skip) {
  console.log(`[km] skipped azure ai search vector store: ${skip}`);
} else {
  afterAll(async () => {
    const store = await createStore();
    for (const collection of await store.listCollections()) await store.deleteCollection(collection);
    await store.close();
  });
}
describeVectorStore({
  name: 'azure ai search (KM_TEST_AZURE_SEARCH_ENDPOINT)',
  skip,
  createStore,
  existingSchema: { definition: Item, create: createNatively },
  // Search indexes lag writes (as in the memory-DB suite of this backend).
  visibilityTimeoutMs: 10_000,
});
