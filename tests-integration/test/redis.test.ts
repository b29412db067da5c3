import { RedisMemoryDb } from '@km/memorydb-redis';
import { createClient } from 'redis';
import { describeMemoryDbOn } from '../src/describe-memory-db-on.js';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';
import { provisionRedis } from '../src/provision-redis.js';

// Redis with the Query Engine: KM_TEST_REDIS_URL (e.g. `docker run -p 6379:6379 redis:8.2.4`), or
// a container when a runtime answers. Indexes get their own prefix so a shared server stays clean.
const backend = await provisionRedis();
describeMemoryDbOn(backend, {
  create: (url) => new RedisMemoryDb({ url, indexPrefix: 'kmtest-' }),
  dispose: (db) => (db as RedisMemoryDb).close(),
});

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
