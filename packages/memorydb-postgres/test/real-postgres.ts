import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

// The real PostgreSQL + pgvector server the suites of this package also run on, when
// KM_TEST_POSTGRES_URL names one (a role allowed to CREATE DATABASE; `.ci/run` starts such a server).
// Each suite works in a database of its own, created here and dropped WITH (FORCE) after the file,
// so parallel vitest workers never see each other's tables. tests-integration has the same helper
// for its suites (tests-integration/src/real-postgres.ts): neither package imports the other's tests.

/** The server's URL, or '' when none is given. */
export const REAL_POSTGRES_URL = process.env.KM_TEST_POSTGRES_URL ?? '';

/** Why the real-server runs are skipped (one line), or false when they run. */
export const NO_REAL_POSTGRES: string | false = REAL_POSTGRES_URL
  ? false
  : 'KM_TEST_POSTGRES_URL is not set (a PostgreSQL server with pgvector, e.g. postgres://km:km@127.0.0.1:5433/km)';

/** A database of its own on the real server. */
export interface RealDatabase {
  /** km_t_<random>. */
  readonly name: string;
  /** The server's URL with this database. */
  readonly url: string;
  /** A pool on the database, ended by `drop`. */
  readonly pool: pg.Pool;
  /** Ends the pool and drops the database, cutting any connection left. */
  drop(): Promise<void>;
}

/** Creates km_t_<random> on the server of KM_TEST_POSTGRES_URL, with the vector extension unless `vector: false`. */
export async function createRealDatabase(options: { vector?: boolean; maxConnections?: number } = {}): Promise<RealDatabase> {
  if (!REAL_POSTGRES_URL) throw new Error(NO_REAL_POSTGRES as string);
  const name = `km_t_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(REAL_POSTGRES_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: options.maxConnections ?? 4 });
  if (options.vector !== false) await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
  return {
    name,
    url: url.toString(),
    pool,
    drop: async () => {
      await pool.end().catch(() => undefined);
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * The file's database on the real server, created on first use and dropped after the file; when
 * KM_TEST_POSTGRES_URL is not set, prints one line saying what `what` needs and `get` throws.
 */
export function realDatabaseOfFile(what: string, options: Parameters<typeof createRealDatabase>[0] = {}): () => Promise<RealDatabase> {
  if (NO_REAL_POSTGRES) console.log(`[km] skipped ${what} on a real PostgreSQL: ${NO_REAL_POSTGRES}`);
  let database: Promise<RealDatabase> | undefined;
  afterAll(async () => {
    if (database) await (await database).drop();
  });
  return () => (database ??= createRealDatabase(options));
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: REAL_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
