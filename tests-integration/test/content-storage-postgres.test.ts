import { describeContentStorage } from '@km/conformance';
import { PostgresContentStorage } from '@km/memorydb-postgres';
import { postgresContentStorageFactory } from '@km/memorydb-postgres/factory';
import { freshPglite, startPgliteServer } from '@km/memorydb-postgres/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createRealDatabase, NO_REAL_POSTGRES } from '../src/real-postgres.js';

// PostgresContentStorage through `pg`: on PGlite (PostgreSQL 17 in WebAssembly) served on a local
// socket, started here, and on a real server when KM_TEST_POSTGRES_URL is set (pgvector not needed).
// Each run uses its own table prefix and drops its tables at the end.
const prefix = `km_it_${Math.random().toString(36).slice(2, 8)}_`;

const db = await freshPglite();
const server = await startPgliteServer(db);
const pglitePool = new pg.Pool({ connectionString: server.url, max: 4 });

// On the real server, a database of this file's own (dropped at the end).
const noReal = NO_REAL_POSTGRES;
if (noReal) console.log(`[km] skipped postgres content storage (KM_TEST_POSTGRES_URL): ${noReal}`);
const real = noReal ? undefined : await createRealDatabase({ vector: false, maxConnections: 8 });
const realUrl = real?.url;
const realPool = real?.pool;

afterAll(async () => {
  for (const name of ['files', 'file_chunks', 'file_versions']) {
    await pglitePool.query(`DROP ${name === 'file_versions' ? 'SEQUENCE' : 'TABLE'} IF EXISTS "${prefix}${name}"`).catch(() => undefined);
  }
  await pglitePool.end();
  await real?.drop();
  await server.stop();
  await db.close();
});

describeContentStorage('postgres (PGlite over TCP, pg pool given in)', {
  create: () => new PostgresContentStorage({ pool: pglitePool, tablePrefix: prefix, chunkBytes: 256 * 1024 }),
});

describeContentStorage('postgres (KM_TEST_POSTGRES_URL, 50 MB file)', {
  skip: noReal,
  create: () => new PostgresContentStorage({ pool: realPool!, tablePrefix: prefix }),
  largeFileBytes: 50 * 1024 * 1024,
});

describeContentStorage('postgres (KM_TEST_POSTGRES_URL, built by the factory from KM_POSTGRES_URL)', {
  skip: noReal,
  create: () =>
    postgresContentStorageFactory.create(
      { postgresUrl: realUrl, postgresContentTablePrefix: prefix, postgresMaxConnections: 4 },
      { logger: { debug() {}, info() {}, warn() {}, error() {} } },
    ),
  dispose: (storage) => (storage as PostgresContentStorage).close(),
});

// Needs a server with real sessions: on PGlite a writer's open transaction holds the only session.
describe.skipIf(!realPool)('postgres content storage on a server: concurrent readers and writers', () => {
  const storage = () => new PostgresContentStorage({ pool: realPool!, tablePrefix: prefix, chunkBytes: 1024 });

  it('a reader during a streaming replace sees the whole old file, then the whole new one', async () => {
    const s = storage();
    const index = `atomic-${Date.now()}`;
    await s.writeFile(index, 'doc', 'f.bin', Buffer.alloc(10_000, 1));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slow() {
      yield Buffer.alloc(6_000, 2); // five chunks sent, inside the open transaction
      await gate;
      yield Buffer.alloc(6_000, 2);
    }
    const writing = s.writeFile(index, 'doc', 'f.bin', slow());
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await s.readFile(index, 'doc', 'f.bin');
    expect([during.length, new Set(during).size, during[0]]).toEqual([10_000, 1, 1]);
    expect((await s.listFiles(index, 'doc')).map((f) => f.size)).toEqual([10_000]);
    release();
    expect(await writing).toBe(12_000);
    const after = await s.readFile(index, 'doc', 'f.bin');
    expect([after.length, new Set(after).size, after[0]]).toEqual([12_000, 1, 2]);
    await s.deleteIndexDirectory(index);
  });

  it('of concurrent plain writes of one file, the last to commit wins whole and no chunk of the others is left', async () => {
    const s = storage();
    const index = `race-${Date.now()}`;
    const sizes = [3_000, 5_000, 7_000, 9_000];
    await Promise.all(sizes.map((n, i) => s.writeFile(index, 'doc', 'f.bin', Buffer.alloc(n, i + 1))));
    const final = await s.readFile(index, 'doc', 'f.bin');
    const writer = final[0]! - 1;
    expect(final.equals(Buffer.alloc(sizes[writer]!, writer + 1))).toBe(true);
    const { rows } = await realPool!.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${prefix}file_chunks" WHERE index_name = $1`, [
      index,
    ]);
    expect(rows[0]!.n).toBe(Math.ceil(sizes[writer]! / 1024));
    await s.deleteIndexDirectory(index);
  });
});
