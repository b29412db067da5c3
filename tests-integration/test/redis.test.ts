import { describeMemoryDb } from '@km/conformance';
import { RedisMemoryDb } from '@km/memorydb-redis';
import { createClient } from 'redis';
import { afterAll } from 'vitest';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';
import { provisionRedis } from '../src/provision-redis.js';

// Redis with the Query Engine: KM_TEST_REDIS_URL (e.g. `docker run -p 6379:6379 redis:8.2.4`), or
// a container when a runtime answers. Indexes get their own prefix so a shared server stays clean.
const backend = await provisionRedis();
afterAll(async () => {
  if ('stop' in backend) await backend.stop();
});

if ('skip' in backend) {
  console.log(`[km] skipped ${backend.name}: ${backend.skip}`);
  describeMemoryDb(backend.name, { create: () => undefined as never, skip: backend.skip });
} else {
  describeMemoryDb(backend.name, {
    create: () => new RedisMemoryDb({ url: backend.url, indexPrefix: 'kmtest-' }),
    dispose: (db) => (db as RedisMemoryDb).close(),
  });
}

// The service, configured by environment variables alone, on the same server.
describeServiceOnMemoryDb(
  backend.name,
  'skip' in backend
    ? { skip: backend.skip }
    : {
        // The records' hashes, counted on the server itself.
        countRecords: async (index) => {
          const client = createClient({ url: backend.url });
          client.on('error', () => undefined);
          await client.connect();
          try {
            let count = 0;
            for await (const keys of client.scanIterator({ MATCH: `kmsvc-${index}:*`, COUNT: 1000 })) count += keys.length;
            return count;
          } finally {
            await client.close();
          }
        },
        env: { KM_MEMORY_DB: 'redis', KM_REDIS_URL: backend.url, KM_MEMORY_DB_PREFIX: 'kmsvc-' },
      },
);
