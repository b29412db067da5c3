import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { startPgliteServer } from '@km/memorydb-postgres/testing';
import pg from 'pg';
import { afterAll } from 'vitest';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';

// The service on PostgreSQL + pgvector, configured by KM_MEMORY_DB and KM_POSTGRES_URL alone:
// PGlite served on a socket stands in for the server (the same wire protocol, through `pg`).
const db = await PGlite.create({ extensions: { vector } });
const server = await startPgliteServer(db);
afterAll(async () => {
  await server.stop();
  await db.close();
});

describeServiceOnMemoryDb('PostgreSQL (PGlite over TCP)', {
  env: { KM_MEMORY_DB: 'postgres', KM_POSTGRES_URL: server.url },
  countRecords: async (index) => {
    // Through the server, so the query never lands inside the service's transaction.
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "km-${index}"`);
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  },
});
