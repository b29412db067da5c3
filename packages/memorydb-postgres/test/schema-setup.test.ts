import { collect } from '@km/conformance';
import { isKmError, type Logger } from '@km/core';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb } from '../src/index.js';
import { startPgliteServer } from '../src/testing.js';
import { withSetupLock } from '../src/schema-setup.js';
import { clientFromPool, type PGliteLike } from '../src/sql-client.js';
import { createRealDatabase, NO_REAL_POSTGRES, type RealDatabase } from './real-postgres.js';
import { freshPglite } from './fresh-pglite.js';

const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) };

describe('pgvector setup', () => {
  // This checks that setting up at once succeeds; it cannot catch the CREATE EXTENSION race (it
  // passes without the setup lock): the PGlite socket server runs whole transactions one at a
  // time, so these connectors never overlap. The race is covered by the classification and
  // setup-lock unit tests (postgres-errors.test.ts) and the real-server CREATE TABLE race below.
  it('several connectors set up at once on a fresh database (serialised by the PGlite server) all succeed, and pgvector is installed once', async () => {
    const pglite = await freshPglite();
    const server = await startPgliteServer(pglite);
    const dbs = Array.from({ length: 5 }, () => new PostgresMemoryDb({ connectionString: server.url, maxConnections: 1, logger }));
    try {
      await Promise.all(dbs.map((db, i) => db.createIndex(`fresh-${i % 2}`, 3)));
      expect(await dbs[0]!.getIndexes()).toEqual(['fresh-0', 'fresh-1']);
      const { rows } = await pglite.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'vector'`);
      expect(rows[0]!.n).toBe(1);
    } finally {
      for (const db of dbs) await db.close();
      await server.stop();
      await pglite.close();
    }
  });

  it('on pgvector older than 0.8 searches skip hnsw.iterative_scan and log the recall caveat once', async () => {
    const pglite = await freshPglite();
    const statements: string[] = [];
    // The same database, reporting pgvector 0.7.4 as a server that has not upgraded would.
    const olderVector: PGliteLike = {
      query: async <R>(text: string, params?: unknown[]) => {
        statements.push(text);
        if (text.includes('FROM pg_extension')) {
          await pglite.query(text, params);
          return { rows: [{ extversion: '0.7.4' }] as R[] };
        }
        return pglite.query<R>(text, params);
      },
      transaction: (fn) =>
        pglite.transaction((tx) =>
          fn({
            query: <R>(text: string, params?: unknown[]) => {
              statements.push(text);
              return tx.query<R>(text, params);
            },
          }),
        ),
    };
    await pglite.exec('CREATE EXTENSION IF NOT EXISTS vector');
    warnings.length = 0;
    const db = new PostgresMemoryDb({ pglite: olderVector, logger });
    try {
      await db.createIndex('older', 3);
      await db.upsert('older', { id: 'a', vector: [1, 0, 0], tags: {}, payload: { text: 'probe' } });
      for (let i = 0; i < 2; i++) expect((await collect(db.getSimilarList('older', [1, 0, 0]))).map(([r]) => r.id)).toEqual(['a']);
      expect(statements.some((s) => s.includes('iterative_scan'))).toBe(false);
      expect(warnings.filter((w) => w.includes('pgvector 0.7.4'))).toHaveLength(1);
    } finally {
      await pglite.close();
    }
  });

  it('a pgvector older than 0.5 is refused at connect with not_configured', async () => {
    const pglite = await freshPglite();
    await pglite.exec('CREATE EXTENSION IF NOT EXISTS vector');
    const ancient: PGliteLike = {
      query: async <R>(text: string, params?: unknown[]) =>
        text.includes('FROM pg_extension') ? { rows: [{ extversion: '0.4.4' }] as R[] } : pglite.query<R>(text, params),
      transaction: (fn) => pglite.transaction((tx) => fn(tx)),
    };
    try {
      await expect(new PostgresMemoryDb({ pglite: ancient, logger }).getIndexes()).rejects.toSatisfy(
        (e: unknown) => isKmError(e, 'not_configured') && /pgvector 0\.4\.4 is too old.*>= 0\.5\.0/.test((e as Error).message),
      );
    } finally {
      await pglite.close();
    }
  });
});

// A real PostgreSQL server (with or without pgvector): KM_TEST_POSTGRES_PLAIN_URL (a throw-away
// database on any server; .ci/run creates one when a local server answers), else a database of this
// file's own on the server of KM_TEST_POSTGRES_URL, created without the vector extension. These tests
// create and drop tables, so they never pick a server on their own.
const PLAIN_URL = process.env.KM_TEST_POSTGRES_PLAIN_URL ?? '';
const ownDatabase: RealDatabase | undefined = PLAIN_URL || NO_REAL_POSTGRES ? undefined : await createRealDatabase({ vector: false });
afterAll(async () => ownDatabase?.drop());
const REAL_URL = PLAIN_URL || ownDatabase?.url || '';
const real =
  REAL_URL === ''
    ? 'neither KM_TEST_POSTGRES_PLAIN_URL (a throw-away database on any PostgreSQL server) nor KM_TEST_POSTGRES_URL is set'
    : await probe(REAL_URL);
const unreachable = real !== 'vector' && real !== 'no-vector';
if (unreachable) console.log(`[km] skipped real PostgreSQL tests: ${real}`);

describe.skipIf(unreachable)(`a real PostgreSQL server (${REAL_URL.replace(/\/\/[^@]*@/, '//')})`, () => {
  it.skipIf(real !== 'no-vector')('without pgvector available, the connector fails with not_configured naming pgvector', async () => {
    const db = new PostgresMemoryDb({ connectionString: REAL_URL, maxConnections: 1, logger });
    try {
      await expect(db.getIndexes()).rejects.toSatisfy(
        (e: unknown) => isKmError(e, 'not_configured') && /pgvector/.test((e as Error).message),
      );
    } finally {
      await db.close();
    }
  });

  it('concurrent creators of one object under the setup lock all succeed (without it, CREATE ... IF NOT EXISTS races)', async () => {
    const { default: pg } = await import('pg');
    const table = `km_setup_race_${process.pid}_${Date.now().toString(36)}`;
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: REAL_URL, max: 1 }));
    try {
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          pools.map((pool) =>
            withSetupLock(clientFromPool(pool, false), (tx) => tx.query(`CREATE TABLE IF NOT EXISTS ${table}_${round} (id int)`)),
          ),
        );
      }
    } finally {
      const admin = pools[0]!;
      for (let round = 0; round < 3; round++) await admin.query(`DROP TABLE IF EXISTS ${table}_${round}`);
      for (const pool of pools) await pool.end();
    }
  });

  // Here connectors do overlap (unlike on the PGlite server above): the CREATE EXTENSION and CREATE
  // TABLE races are real. Only in a database of this file's own, where the extension is not there yet.
  it.skipIf(!ownDatabase)(
    'several connectors set up at once on a database without pgvector all succeed, and pgvector is installed once',
    async () => {
      const dbs = Array.from({ length: 5 }, () => new PostgresMemoryDb({ connectionString: REAL_URL, maxConnections: 1, logger }));
      try {
        await Promise.all(dbs.map((db, i) => db.createIndex(`fresh-${i % 2}`, 3)));
        expect((await dbs[0]!.getIndexes()).sort()).toEqual(['fresh-0', 'fresh-1']);
        const { rows } = await ownDatabase!.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'vector'`,
        );
        expect(rows[0]!.n).toBe(1);
      } finally {
        for (const db of dbs) await db.close();
      }
    },
  );
});

/** 'vector' when the server has pgvector available, 'no-vector' when not, else why it is unreachable. */
async function probe(url: string): Promise<'vector' | 'no-vector' | string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    return rows.length > 0 ? 'vector' : 'no-vector';
  } catch (error) {
    return `no PostgreSQL at ${url} (${(error as Error).message}); set KM_TEST_POSTGRES_PLAIN_URL or KM_TEST_POSTGRES_URL`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
