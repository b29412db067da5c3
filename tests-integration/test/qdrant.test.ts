import { describeMemoryDb } from '@km/conformance';
import { QdrantMemoryDb } from '@km/memorydb-qdrant';
import { afterAll } from 'vitest';
import { provisionHttpBackend } from '../src/provision-search-backend.js';

// Qdrant: KM_TEST_QDRANT_URL (e.g. `docker run -p 6333:6333 qdrant/qdrant`), or a container
// when a runtime answers. Collections get a per-run prefix so a shared server stays clean.
const backend = await provisionHttpBackend({ name: 'qdrant', label: 'Qdrant', envVar: 'KM_TEST_QDRANT_URL', image: 'qdrant/qdrant:v1.15.0', port: 6333, readyPath: '/readyz' });
afterAll(async () => {
  if ('stop' in backend) await backend.stop();
});

if ('skip' in backend) {
  console.log(`[km] skipped ${backend.name}: ${backend.skip}`);
  describeMemoryDb(backend.name, { create: () => undefined as never, skip: backend.skip });
} else {
  describeMemoryDb(backend.name, {
    create: () => new QdrantMemoryDb({ url: backend.url, apiKey: process.env.KM_TEST_QDRANT_API_KEY, collectionPrefix: 'kmtest-' }),
  });
}
