import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { MemoryFilters } from '@km/core';
import { collect } from '@km/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb, type PostgresMemoryDbOptions } from '../src/index.js';
import { startPgliteServer } from '../src/testing.js';
import { createRealDatabase, NO_REAL_POSTGRES, REAL_POSTGRES_URL } from './real-postgres.js';
import { CONFIGURATIONS, type Configuration, readOutputs } from './fixtures/compat-scenario.js';
import { freshPglite } from './fresh-pglite.js';

interface Fixture {
  statements: Array<{ sql: string; params: unknown[] }>;
  outputs: Record<string, unknown>;
}

/** A database holding the fixture's tables, how to reach it, and how to throw it away. */
interface Database {
  connection: Pick<PostgresMemoryDbOptions, 'pglite' | 'pool'>;
  dispose(): Promise<void>;
}

// Tables written by km 0.x's memory DB driver (the fixture holds the statements it ran, and the
// results of its reads) open unchanged: today's PostgresMemoryDb reads exactly the same, in
// process (PGlite), through `pg` over TCP, and on a real server when KM_TEST_POSTGRES_URL is set
// (in a database of its own, created and dropped here).
const fixture = JSON.parse(await readFile(new URL('./fixtures/km-tables-v0.json', import.meta.url), 'utf8')) as Fixture;
const logger = { debug() {}, info() {}, warn() {}, error() {} };

async function replay(db: { query(sql: string, params?: unknown[]): Promise<unknown> }): Promise<void> {
  for (const { sql, params } of fixture.statements) await db.query(sql, params);
}

const sources: Record<string, () => Promise<Database>> = {
  'PGlite in process': async () => {
    const pglite = await freshPglite();
    await replay(pglite);
    return { connection: { pglite }, dispose: () => pglite.close() };
  },
  'pg over TCP to PGlite': async () => {
    const pglite = await freshPglite();
    await replay(pglite);
    const server = await startPgliteServer(pglite);
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    return {
      connection: { pool },
      dispose: async () => {
        await pool.end();
        await server.stop();
        await pglite.close();
      },
    };
  },
};
if (REAL_POSTGRES_URL) {
  sources['a real PostgreSQL (KM_TEST_POSTGRES_URL)'] = async () => {
    const database = await createRealDatabase({ vector: false, maxConnections: 2 });
    await replay(database.pool);
    return { connection: { pool: database.pool }, dispose: () => database.drop() };
  };
} else {
  console.log(`[km] skipped km 0.x tables on a real PostgreSQL: ${NO_REAL_POSTGRES}`);
}

for (const [name, source] of Object.entries(sources)) {
  describe(`PostgresMemoryDb opens tables written by km 0.x (${name})`, () => {
    let database: Database;
    beforeAll(async () => {
      database = await source();
    });
    afterAll(async () => database?.dispose());

    it('lists, searches (vector, lexical, hybrid) and reads records as km 0.x did, in every layout it wrote', async () => {
      const open = (configuration: Configuration) =>
        new PostgresMemoryDb({ ...database.connection, logger, ...CONFIGURATIONS[configuration] });
      const outputs = await readOutputs(open);
      for (const [read, expected] of Object.entries(fixture.outputs)) expect(outputs[read], read).toEqual(expected);
      expect(Object.keys(outputs)).toEqual(Object.keys(fixture.outputs));
    });

    it('writes into those tables (NOT NULL columns, jsonb payload, generated full-text column) and reads the records back', async () => {
      for (const configuration of ['plain', 'custom'] as const) {
        const db = new PostgresMemoryDb({ ...database.connection, logger, ...CONFIGURATIONS[configuration] });
        const index = configuration === 'plain' ? 'compat' : 'archive';
        const record = {
          id: 'written-now',
          vector: [0.1, 0.2, 0.3, 0.4],
          tags: { team: ['qa'] },
          payload: { text: 'typhoon warning', big: [1, { a: null }] },
        };
        await db.upsert(index, record);
        const [found] = await collect(db.getList(index, { filters: [MemoryFilters.byTag('team', 'qa')], withEmbeddings: true }));
        expect({ ...found, vector: Array.from(found!.vector, (v) => Math.round(v * 1e6) / 1e6) }).toEqual(record);
        const lexical = await collect(db.getSimilarList(index, 'typhoon', { mode: 'lexical', text: 'typhoon' }));
        expect(lexical.map(([r]) => r.id)).toEqual(['written-now']);
        await db.delete(index, { id: 'written-now' });
        expect(await collect(db.getList(index, { filters: [MemoryFilters.byTag('team', 'qa')] }))).toEqual([]);
        await db.close();
      }
    });
  });
}
