import { join } from 'node:path';
import { vector } from '@electric-sql/pglite-pgvector';
import { collect } from '@km/conformance';
import { SimpleVectorDb } from '@km/core';
import { freshPglite, startPgliteServer } from '@km/memorydb-postgres/testing';
import pg from 'pg';
import { afterAll, expect } from 'vitest';
import { describeServiceOnMemoryDb } from '../src/describe-service-on-memory-db.js';

// KM_MEMORY_DB=postgres,simple: every record is written to both memory DBs (and deleted from
// both); searches read the first. PGlite served on a socket stands in for the PostgreSQL server.
const db = await freshPglite({ extensions: { vector } });
const server = await startPgliteServer(db);
afterAll(async () => {
  await server.stop();
  await db.close();
});

describeServiceOnMemoryDb('PostgreSQL and the embedded SimpleVectorDb together', {
  env: { KM_MEMORY_DB: 'postgres,simple', KM_POSTGRES_URL: server.url },
  countRecords: async (index, dataDir) => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    let inPostgres: number;
    try {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "km-${index}"`);
      inPostgres = rows[0]!.n;
    } finally {
      await client.end();
    }
    // The second memory DB holds the same records: read its files with a fresh instance.
    const simple = new SimpleVectorDb({ directory: join(dataDir, 'vectors') });
    try {
      expect(await collect(simple.getList(index))).toHaveLength(inPostgres);
    } finally {
      await simple.close();
    }
    return inPostgres;
  },
});
