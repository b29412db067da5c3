import { MongoDbMemoryDb } from '@km/memorydb-mongodb';
import { MongoClient } from 'mongodb';
import { afterAll } from 'vitest';
import { describeMemoryDbOn } from '../src/describe-memory-db-on.js';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';
import { provisionBackend } from '../src/provision-search-backend.js';

// MongoDB with vector search: KM_TEST_MONGODB_URL (Atlas, or
// `docker run -p 27017:27017 mongodb/mongodb-atlas-local` with `?directConnection=true`), or an
// atlas-local container when a runtime answers. Search indexes follow writes asynchronously
// (mongot), so the suite polls reads for up to 30 s.
const backend = await provisionBackend({
  name: 'mongodb',
  envVar: 'KM_TEST_MONGODB_URL',
  wanted: 'a MongoDB with vector search (Atlas, or mongodb/mongodb-atlas-local with ?directConnection=true)',
  image: 'mongodb/mongodb-atlas-local:8.0',
  port: 27017,
  wait: (Wait) => Wait.forHealthCheck().withStartupTimeout(180_000),
  url: (host, port) => `mongodb://${host}:${port}/?directConnection=true`,
});
const reader = 'url' in backend ? new MongoClient(backend.url) : undefined;
afterAll(async () => {
  await reader?.close();
});

describeMemoryDbOn(backend, {
  create: (url) => new MongoDbMemoryDb({ url, database: 'kmtest', collectionPrefix: 'kmtest-' }),
  dispose: (db) => (db as MongoDbMemoryDb).close(),
  visibilityTimeoutMs: 30_000,
});

// The service, configured by environment variables alone, on the same deployment.
describeServiceOnMemoryDb(
  backend.name,
  'skip' in backend
    ? { skip: backend.skip }
    : {
        env: { KM_MEMORY_DB: 'mongodb', KM_MONGODB_URL: backend.url, KM_MEMORY_DB_PREFIX: 'kmsvc-' },
        // The collection itself, read with find (immediately consistent), not through search.
        countRecords: async (index) => reader!.db('km').collection(`kmsvc-${index}`).countDocuments(),
      },
);
