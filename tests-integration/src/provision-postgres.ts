import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { containerRuntimeUnavailable } from './container-runtime.js';
import { createRealDatabase, NO_REAL_POSTGRES } from './real-postgres.js';
import { freshPglite } from '@km/memorydb-postgres/testing';

/** A PostgreSQL + pgvector server the suites can reach with `pg`, or why there is none. */
export type PostgresBackend = { name: string; pool: () => pg.Pool; stop: () => Promise<void> } | { name: string; skip: string };

/**
 * Every PostgreSQL this run can reach, in DESIGN §9's order: `KM_TEST_POSTGRES_URL` (a database of
 * its own there); PGlite
 * (Postgres 17 + pgvector compiled to WASM) served on a local socket; a `pgvector/pgvector:pg17`
 * container when a runtime answers. Each one missing is a named skip.
 */
export async function provisionPostgres(): Promise<PostgresBackend[]> {
  const backends: PostgresBackend[] = [];

  if (NO_REAL_POSTGRES) {
    backends.push({ name: 'postgres (KM_TEST_POSTGRES_URL)', skip: NO_REAL_POSTGRES });
  } else {
    // A database of its own on that server (dropped by `stop`), so parallel suites never collide.
    const database = await createRealDatabase();
    backends.push({ name: 'postgres (KM_TEST_POSTGRES_URL)', pool: () => database.pool, stop: () => database.drop() });
  }

  // PGlite over TCP: every connection shares one session, so a pool of one.
  const db = await freshPglite({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  await server.start();
  const [host, port] = server.getServerConn().split(':');
  const socketPool = new pg.Pool({ host, port: Number(port), user: 'postgres', database: 'postgres', max: 1 });
  backends.push({
    name: 'postgres (PGlite via pglite-socket and pg)',
    pool: () => socketPool,
    stop: async () => {
      await socketPool.end();
      await server.stop();
      await db.close();
    },
  });

  const noRuntime = await containerRuntimeUnavailable();
  if (noRuntime) {
    backends.push({ name: 'postgres (Testcontainers pgvector/pgvector:pg17)', skip: `${noRuntime}; needs Docker or Podman` });
  } else {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('pgvector/pgvector:pg17')
      .withEnvironment({ POSTGRES_PASSWORD: 'km', POSTGRES_DB: 'km' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    const pool = new pg.Pool({
      host: container.getHost(),
      port: container.getMappedPort(5432),
      user: 'postgres',
      password: 'km',
      database: 'km',
      max: 4,
    });
    backends.push({
      name: 'postgres (Testcontainers pgvector/pgvector:pg17)',
      pool: () => pool,
      stop: async () => {
        await pool.end();
        await container.stop();
      },
    });
  }
  return backends;
}
