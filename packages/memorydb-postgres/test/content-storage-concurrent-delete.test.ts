import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DELETE_BATCH_FILES } from '../src/content-storage/content-statements.js';
import { type PgPoolLike, PostgresContentStorage } from '../src/index.js';
import { createRealDatabase, NO_REAL_POSTGRES } from './real-postgres.js';

// Deletes racing other connections on a real server (PGlite has one connection): runs only when
// KM_TEST_POSTGRES_URL is set, in a database of its own (dropped at the end).
const prefix = `cdel_${randomBytes(4).toString('hex')}_`;
if (NO_REAL_POSTGRES) console.log(`[km] skipped content storage deletes racing other connections: ${NO_REAL_POSTGRES}`);
const database = NO_REAL_POSTGRES ? undefined : await createRealDatabase({ vector: false, maxConnections: 2 });
const url = database?.url;

describe.skipIf(!database)('PostgresContentStorage deletes racing other connections (real server)', () => {
  const admin = database?.pool as pg.Pool;
  const pools: pg.Pool[] = [];
  const storages: PostgresContentStorage[] = [];
  afterAll(async () => {
    await Promise.all(storages.map((s) => s.close()));
    await Promise.all(pools.map((p) => p.end()));
    await database?.drop();
  });

  /** A storage on its own pool; with `commitGate`, each transaction waits for it before COMMIT. */
  function storage(commitGate?: () => Promise<void>): PostgresContentStorage {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pools.push(pool);
    const gated: PgPoolLike = {
      query: (text, values) => pool.query(text, values),
      connect: async () => {
        const client = await pool.connect();
        return {
          query: async (text: string, values?: unknown[]) => {
            if (text === 'COMMIT' && commitGate) await commitGate();
            return client.query(text, values);
          },
          release: (error?: Error | boolean) => client.release(error),
        };
      },
      end: async () => undefined,
      on: () => undefined,
      listenerCount: () => 1,
    };
    const made = new PostgresContentStorage({ pool: gated, tablePrefix: prefix, chunkBytes: 16 });
    storages.push(made);
    return made;
  }

  const count = async (sql: string, params: unknown[] = []) => Number((await admin.query(sql, params)).rows[0].n);
  const orphanChunks = () =>
    count(
      `SELECT count(*)::int AS n FROM "${prefix}file_chunks" c WHERE NOT EXISTS (SELECT 1 FROM "${prefix}files" f
        WHERE f.index_name = c.index_name AND f.document_id = c.document_id AND f.name = c.name AND f.version = c.version)`,
    );
  /** Waits until a statement on `table` waits for a row lock. */
  async function waitingForLock(): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const n = await count(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%' || $1 || 'files%'`,
        [prefix],
      );
      if (n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('no statement came to wait for the lock');
  }

  it('a document deleted while a write of one of its files is uncommitted leaves no chunk without its file', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reachedCommit!: () => void;
    const atCommit = new Promise<void>((resolve) => (reachedCommit = resolve));
    let armed = false;
    const writer = storage(async () => {
      if (!armed) return;
      reachedCommit();
      await gate;
    });
    const deleter = storage();
    await deleter.writeFile('idx', 'doc', 'a.bin', Buffer.alloc(40, 1));
    await deleter.writeFile('idx', 'doc', 'b.bin', Buffer.alloc(40, 2));
    await writer.listIndexes(); // its table setup (a transaction too) done before the gate closes
    armed = true;
    // The writer replaces a.bin with three new chunks and holds its row lock, not yet committed.
    const write = writer.writeFile('idx', 'doc', 'a.bin', Buffer.alloc(48, 3));
    await atCommit;
    const deletion = deleter.deleteDocumentDirectory('idx', 'doc');
    await waitingForLock();
    release();
    await write;
    await deletion;
    expect(await orphanChunks()).toBe(0);
    expect(await deleter.listFiles('idx', 'doc')).toEqual([]);
    expect(await count(`SELECT count(*)::int AS n FROM "${prefix}file_chunks" WHERE index_name = 'idx'`)).toBe(0);
  });

  it('a batch cut short by a concurrent deleter does not end the deletion while files remain', async () => {
    const deleter = storage();
    await deleter.writeFile('idx2', 'doc', 'seed', 'x'); // creates the tables
    const total = DELETE_BATCH_FILES + 20;
    // In name order (heap order too), so the first batch takes f0000..f0199.
    await admin.query(
      `INSERT INTO "${prefix}files" SELECT 'idx2', 'doc', 'f' || lpad(i::text, 4, '0'), 1, 16, 1000000 + i FROM generate_series(0, $1) i`,
      [total - 2],
    );
    await admin.query(
      `INSERT INTO "${prefix}file_chunks" SELECT 'idx2', 'doc', 'f' || lpad(i::text, 4, '0'), 1000000 + i, 0, '\\x01' FROM generate_series(0, $1) i`,
      [total - 2],
    );
    const other = await admin.connect();
    try {
      // Another connection deletes f0000 and holds the row lock: the batch waits, then finds it gone.
      await other.query('BEGIN');
      await other.query(`DELETE FROM "${prefix}files" WHERE index_name = 'idx2' AND document_id = 'doc' AND name = 'f0000'`);
      const deletion = deleter.deleteDocumentDirectory('idx2', 'doc');
      await waitingForLock();
      await other.query('COMMIT');
      await deletion;
    } finally {
      other.release();
    }
    expect(await deleter.listFiles('idx2', 'doc')).toEqual([]);
  });
});
