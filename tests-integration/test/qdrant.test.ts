import { QdrantMemoryDb } from '@km/memorydb-qdrant';
import { describeMemoryDbOn } from '../src/describe-memory-db-on.js';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';
import { provisionHttpBackend } from '../src/provision-search-backend.js';

// Qdrant: KM_TEST_QDRANT_URL (e.g. `docker run -p 6333:6333 qdrant/qdrant`), or a container
// when a runtime answers. Collections get a per-run prefix so a shared server stays clean.
const backend = await provisionHttpBackend({
  name: 'qdrant',
  label: 'Qdrant',
  envVar: 'KM_TEST_QDRANT_URL',
  image: 'qdrant/qdrant:v1.15.0',
  port: 6333,
  readyPath: '/readyz',
});
describeMemoryDbOn(backend, {
  create: (url) => new QdrantMemoryDb({ url, apiKey: process.env.KM_TEST_QDRANT_API_KEY, collectionPrefix: 'kmtest-' }),
});

// The service, configured by environment variables alone, on the same server.
describeServiceOnMemoryDb(
  backend.name,
  'skip' in backend
    ? { skip: backend.skip }
    : {
        countRecords: async (index) => {
          const apiKey = process.env.KM_TEST_QDRANT_API_KEY;
          const response = await fetch(`${backend.url}/collections/kmsvc-${index}/points/count`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(apiKey ? { 'api-key': apiKey } : {}) },
            body: JSON.stringify({ exact: true }),
          });
          return ((await response.json()) as { result: { count: number } }).result.count;
        },
        env: {
          KM_MEMORY_DB: 'qdrant',
          KM_QDRANT_URL: backend.url,
          KM_MEMORY_DB_PREFIX: 'kmsvc-',
          ...(process.env.KM_TEST_QDRANT_API_KEY ? { KM_QDRANT_API_KEY: process.env.KM_TEST_QDRANT_API_KEY } : {}),
        },
      },
);
