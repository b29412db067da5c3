import { describeVectorStore } from '@km/conformance';
import { defineRecord } from '@km/core';
import { ElasticsearchVectorStore, indexOfCollection } from '@km/memorydb-elasticsearch';
import { afterAll } from 'vitest';
import { provisionHttpBackend } from '../src/provision-search-backend.js';

// The typed vector store on Elasticsearch 8 with security off: KM_TEST_ELASTICSEARCH_URL, or a
// container when a runtime answers. Writes use refresh=false, so the suite's polling covers
// near-real-time visibility. Indexes get their own prefix so a shared server stays clean.
const backend = await provisionHttpBackend({
  name: 'elasticsearch',
  label: 'Elasticsearch',
  envVar: 'KM_TEST_ELASTICSEARCH_URL',
  image: 'docker.elastic.co/elasticsearch/elasticsearch:8.19.0',
  port: 9200,
  readyPath: '/_cluster/health?wait_for_status=yellow&timeout=60s',
  environment: { 'discovery.type': 'single-node', 'xpack.security.enabled': 'false', ES_JAVA_OPTS: '-Xms512m -Xmx512m' },
});
const prefix = 'kmvstest-';
const url = 'url' in backend ? backend.url : '';
afterAll(async () => {
  if ('stop' in backend) await backend.stop();
});

/** An index made by Elasticsearch's own API, with other field names, an integer key and a field km does not map. */
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

async function createNatively(collection: string): Promise<void> {
  const response = await fetch(`${url}/${indexOfCollection(prefix, collection)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      mappings: {
        properties: {
          item_no: { type: 'long' },
          item_title: { type: 'keyword' },
          unit_price: { type: 'double' },
          item_labels: { type: 'keyword' },
          free_text: { type: 'keyword' },
          summary: { type: 'text' },
          // Plain HNSW: Elasticsearch's default for float vectors is a quantised graph, whose scores are approximate.
          look_vec: { type: 'dense_vector', dims: 4, index: true, similarity: 'l2_norm', index_options: { type: 'hnsw' } },
        },
      },
    }),
  });
  if (!response.ok) throw new Error(`Elasticsearch refused the index: ${response.status} ${await response.text()}`);
}

if ('skip' in backend) console.log(`[km] skipped elasticsearch vector store (${backend.name}): ${backend.skip}`);
describeVectorStore({
  name: `elasticsearch, ${backend.name}`,
  skip: 'skip' in backend ? backend.skip : false,
  createStore: async () => new ElasticsearchVectorStore({ node: url, indexPrefix: prefix, refresh: false }),
  existingSchema: { definition: Item, create: createNatively },
});
