import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { isKmError, type Logger } from '@km/core';
import { collect } from '@km/conformance';
import { describe, expect, it } from 'vitest';
import { PostgresMemoryDb } from '../src/index.js';
import { useProxiedDatabase } from './proxied-database.js';

// PostgreSQL (PGlite served on TCP) behind a proxy that can cut every connection, as a database
// restart, a failover or an idle timeout would.
const database = useProxiedDatabase();

describe('PostgresMemoryDb when the database drops its connections', () => {
  it('survives idle connections cut, fails as transient while the database is down, and recovers on the same pool slot', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
    // One connection only: a slot lost to a broken client would make every later call time out.
    const db = new PostgresMemoryDb({
      connectionString: database.url,
      maxConnections: 1,
      connectionTimeoutMs: 5000,
      logger,
    });
    try {
      await db.createIndex('outage', 3);
      await db.upsert('outage', { id: 'a', vector: [1, 0, 0], tags: { k: ['v'] }, payload: { text: 'before' } });
      expect(await collect(db.getList('outage'))).toHaveLength(1);

      // The idle connection dies: pg emits 'error' on the pool, which must not be uncaught.
      expect(database.cut()).toBeGreaterThan(0);
      await expect.poll(() => warnings.some((w) => w.includes('idle connection was lost'))).toBe(true);
      expect((await collect(db.getSimilarList('outage', [1, 0, 0]))).map(([r]) => r.id)).toEqual(['a']);

      // The database goes away: every kind of call fails as a transient KmError, none hangs or crashes.
      database.cut();
      await database.stop();
      const transient = (e: unknown) => isKmError(e, 'transient') && (e as { transient: boolean }).transient;
      await expect(db.upsert('outage', { id: 'b', vector: [0, 1, 0], tags: {}, payload: { text: 'during' } })).rejects.toSatisfy(transient);
      await expect(collect(db.getSimilarList('outage', [0, 1, 0]))).rejects.toSatisfy(transient); // a transaction
      await expect(collect(db.getList('outage'))).rejects.toSatisfy(transient);
      await expect(db.getIndexes()).rejects.toSatisfy(transient);

      // Back on the same port: the same instance works again.
      await database.restart();
      await db.upsert('outage', { id: 'b', vector: [0, 1, 0], tags: {}, payload: { text: 'after' } });
      expect((await collect(db.getSimilarList('outage', [0, 1, 0]))).map(([r]) => r.id)).toEqual(['b', 'a']);
      expect(await db.getIndexes()).toContain('outage');
      expect(database.uncaught).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('a pool given in without an error listener gets one, so an idle cut does not end the process', async () => {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const warnings: string[] = [];
    const db = new PostgresMemoryDb({ pool, logger: { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) } });
    try {
      expect(await db.getIndexes()).toBeInstanceOf(Array);
      expect(pool.listenerCount('error')).toBe(1);
      database.cut();
      await expect.poll(() => warnings.length).toBeGreaterThan(0);
      expect(await db.getIndexes()).toBeInstanceOf(Array);
      expect(database.uncaught).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

/**
 * A proxy that can go silent: connections stay open but nothing gets through, in either direction,
 * and new connections are accepted but never answered. That is a half-open connection after a
 * failover or a network cut without RST; no error ever reaches the client.
 */
async function startSilenceableProxy(target: number) {
  const pairs = new Set<[Socket, Socket | undefined]>();
  let silent = false;
  const server = createServer((client) => {
    const upstream = silent ? undefined : connect(target, '127.0.0.1');
    const pair: [Socket, Socket | undefined] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream?.destroy();
    };
    client.on('error', end).on('close', end);
    if (!upstream) return void client.resume(); // accepted, never answered
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** From now on every byte is dropped, on open and new connections alike. */
    silence() {
      silent = true;
      for (const [client, upstream] of pairs) {
        if (!upstream) continue;
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.resume(); // flowing with no consumer: the data is dropped
        upstream.resume();
      }
    },
    /** Ends the silent connections and lets new ones through again. */
    restore() {
      silent = false;
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream?.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream?.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

describe('PostgresMemoryDb on a half-open connection (the server stops answering, no RST)', () => {
  it('a query that gets no answer within queryTimeoutMs fails as transient instead of hanging, and the pool slot is not lost', {
    timeout: 30_000,
  }, async () => {
    const silent = await startSilenceableProxy(database.serverPort);
    const logger: Logger = { debug() {}, info() {}, error() {}, warn() {} };
    const db = new PostgresMemoryDb({
      connectionString: `postgres://postgres@127.0.0.1:${silent.port}/postgres`,
      maxConnections: 1,
      queryTimeoutMs: 300,
      connectionTimeoutMs: 2000,
      logger,
    });
    // Without a query timeout the calls below never settle: fail the test instead of waiting forever.
    const settles = <T>(promise: Promise<T>) =>
      Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still hanging after 10 s')), 10_000))]);
    const transient = (e: unknown) => isKmError(e, 'transient') && (e as { transient: boolean }).transient;
    try {
      await db.createIndex('half-open', 3);
      await db.upsert('half-open', { id: 'a', vector: [1, 0, 0], tags: {}, payload: { text: 'x' } });

      // A plain query on the pooled connection.
      silent.silence();
      const plain = await settles(db.getIndexes()).catch((e: unknown) => e);
      expect(plain).toSatisfy(transient);
      expect((plain as Error).message).toMatch(/Query read timeout/);

      // A transaction (BEGIN gets no answer): fails as transient too, and its connection is dropped.
      silent.restore();
      expect(await db.getIndexes()).toContain('half-open');
      silent.silence();
      await expect(settles(collect(db.getSimilarList('half-open', [1, 0, 0])))).rejects.toSatisfy(transient);

      // The network comes back: the same instance, with its one connection slot, works again.
      silent.restore();
      expect((await collect(db.getSimilarList('half-open', [1, 0, 0]))).map(([r]) => r.id)).toEqual(['a']);
    } finally {
      silent.restore();
      await db.close();
      await silent.close();
    }
  });
});
