import { describeMemoryDb } from '@km/conformance';
import { PostgresMemoryDb } from '@km/memorydb-postgres';
import { afterAll } from 'vitest';
import { provisionPostgres } from '../src/provision-postgres.js';

const backends = await provisionPostgres();
afterAll(async () => {
  for (const b of backends) if ('stop' in b) await b.stop();
});

for (const backend of backends) {
  if ('skip' in backend) {
    console.log(`[km] skipped ${backend.name}: ${backend.skip}`);
    describeMemoryDb(backend.name, { create: () => undefined as never, skip: backend.skip });
  } else {
    describeMemoryDb(backend.name, { create: () => new PostgresMemoryDb({ pool: backend.pool() }) });
  }
}
