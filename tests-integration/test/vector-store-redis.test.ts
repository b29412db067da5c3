import { describeVectorStore } from '@km/conformance';
import { defineRecord } from '@km/core';
import { RedisVectorStore } from '@km/memorydb-redis';
import { createClient } from 'redis';
import { afterAll } from 'vitest';
import { provisionRedis } from '../src/provision-redis.js';

// The typed vector store on Redis with the Query Engine: KM_TEST_REDIS_URL (e.g.
// `docker run -p 6379:6379 redis:8.2.4`), or a container when a runtime answers; a plain Redis
// (no FT.* commands) cannot run it. Collections get their own prefix so a shared server stays clean.
const backend = await provisionRedis();
const prefix = 'kmvstest-';
afterAll(async () => {
  if ('stop' in backend) await backend.stop();
});

/** An index made by FT.CREATE itself, with other field names and an integer key, as an application may have. */
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

async function createNatively(url: string, collection: string): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const tag = ['TAG', 'SEPARATOR', ',', 'CASESENSITIVE'];
    await client.sendCommand([
      'FT.CREATE',
      `${prefix}${collection}`,
      'ON',
      'HASH',
      'PREFIX',
      '1',
      `${prefix}${collection}:`,
      'SCHEMA',
      'item_no',
      'NUMERIC',
      'item_title',
      ...tag,
      'unit_price',
      'NUMERIC',
      'SORTABLE',
      'item_labels',
      ...tag,
      'look_vec',
      'VECTOR',
      'FLAT',
      '6',
      'TYPE',
      'FLOAT32',
      'DIM',
      '4',
      'DISTANCE_METRIC',
      'L2',
    ]);
  } finally {
    await client.close();
  }
}

if ('skip' in backend) console.log(`[km] skipped redis vector store (${backend.name}): ${backend.skip}`);
describeVectorStore({
  name: `redis, ${backend.name}`,
  skip: 'skip' in backend ? backend.skip : false,
  createStore: async () => new RedisVectorStore({ url: 'url' in backend ? backend.url : '', collectionPrefix: prefix }),
  existingSchema: { definition: Item, create: (collection) => createNatively('url' in backend ? backend.url : '', collection) },
});
