import { describeMemoryDb } from '@km/conformance';
import { MongoDbMemoryDb } from '@km/memorydb-mongodb';
import { MongoClient } from 'mongodb';
import { afterAll } from 'vitest';
import { containerRuntimeUnavailable } from '../src/container-runtime.js';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';

// MongoDB with vector search: KM_TEST_MONGODB_URL (Atlas, or
// `docker run -p 27017:27017 mongodb/mongodb-atlas-local` with `?directConnection=true`), or an
// atlas-local container when a runtime answers. Search indexes follow writes asynchronously
// (mongot), so the suite polls reads for up to 30 s.
const IMAGE = 'mongodb/mongodb-atlas-local:8.0';
type Backend = { name: string; url: string; stop: () => Promise<void> } | { name: string; skip: string };

async function provisionMongoDb(): Promise<Backend> {
  const url = process.env.KM_TEST_MONGODB_URL;
  if (url) return { name: 'mongodb (KM_TEST_MONGODB_URL)', url, stop: async () => undefined };
  const name = `mongodb (Testcontainers ${IMAGE})`;
  const noRuntime = await containerRuntimeUnavailable();
  if (noRuntime) {
    return {
      name,
      skip: `set KM_TEST_MONGODB_URL to a MongoDB with vector search (Atlas, or mongodb/mongodb-atlas-local with ?directConnection=true), or run with Docker or Podman (${noRuntime})`,
    };
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(IMAGE)
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forHealthCheck().withStartupTimeout(180_000))
    .start();
  return {
    name,
    url: `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`,
    stop: async () => {
      await container.stop();
    },
  };
}

const backend = await provisionMongoDb();
const reader = 'url' in backend ? new MongoClient(backend.url) : undefined;
afterAll(async () => {
  await reader?.close();
  if ('stop' in backend) await backend.stop();
});

if ('skip' in backend) {
  console.log(`[km] skipped ${backend.name}: ${backend.skip}`);
  describeMemoryDb(backend.name, { create: () => undefined as never, skip: backend.skip });
} else {
  describeMemoryDb(backend.name, {
    create: () => new MongoDbMemoryDb({ url: backend.url, database: 'kmtest', collectionPrefix: 'kmtest-' }),
    dispose: (db) => (db as MongoDbMemoryDb).close(),
    visibilityTimeoutMs: 30_000,
  });
}

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
