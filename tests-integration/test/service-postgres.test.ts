import { vector } from '@electric-sql/pglite-pgvector';
import { freshPglite, startPgliteServer } from '@km/memorydb-postgres/testing';
import pg from 'pg';
import { afterAll } from 'vitest';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';
import { createRealDatabase, NO_REAL_POSTGRES } from '../src/real-postgres.js';

// The service on PostgreSQL + pgvector, configured by KM_MEMORY_DB and KM_POSTGRES_URL alone:
// PGlite served on a socket stands in for the server (the same wire protocol, through `pg`); and
// a real server when KM_TEST_POSTGRES_URL is set, in a database of this file's own.
const db = await freshPglite({ extensions: { vector } });
const server = await startPgliteServer(db);
if (NO_REAL_POSTGRES) console.log(`[km] skipped km serve on a real PostgreSQL: ${NO_REAL_POSTGRES}`);
const real = NO_REAL_POSTGRES ? undefined : await createRealDatabase();
afterAll(async () => {
  await server.stop();
  await db.close();
  await real?.drop();
});

/** Records of km's table for `index`, counted through its own connection (never inside the service's transaction). */
const countRecords = (url: string) => async (index: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "km-${index}"`);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
};

describeServiceOnMemoryDb('PostgreSQL (PGlite over TCP)', {
  env: { KM_MEMORY_DB: 'postgres', KM_POSTGRES_URL: server.url },
  countRecords: countRecords(server.url),
});

describeServiceOnMemoryDb(
  'PostgreSQL (a real server, KM_TEST_POSTGRES_URL)',
  real
    ? { env: { KM_MEMORY_DB: 'postgres', KM_POSTGRES_URL: real.url }, countRecords: countRecords(real.url) }
    : { skip: NO_REAL_POSTGRES as string },
);
