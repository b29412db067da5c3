import { createHash } from 'node:crypto';
import { KmError } from '@km/core';
import { pgvectorFeatures, MIN_PGVECTOR_VERSION, type PgvectorFeatures } from './pgvector-version.js';
import { isSetupRace, sqlState } from './postgres-errors.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';

/**
 * Key of the session-independent advisory lock every km process takes around schema setup
 * (`CREATE EXTENSION`), so processes starting at once on a fresh database do not race.
 * The number spells "km:setup" in ASCII.
 */
export const SCHEMA_SETUP_LOCK_KEY = 0x6b6d3a7365747570n;
/**
 * Key of the advisory lock serialising the creators of one table: `kind` keeps the memory DB's
 * (`table`) and the typed store's (`collection`) keys apart.
 *
 * ```ts
 * await withSetupLock(client, create, tableLockKey('collection', '"public"."hotels"'));
 * ```
 */
export function tableLockKey(kind: 'table' | 'collection', table: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`km:${kind}:${table}`).digest('hex').slice(0, 16)}`));
}

/** Attempts of a setup step that lost a creation race (23505, 42P07, 42710) before giving up (as transient). */
export const SETUP_ATTEMPTS = 5;

/**
 * Runs `fn` in a transaction holding the schema setup advisory lock, again when it loses a
 * creation race to another process (the loser's transaction is rolled back; once the winner
 * commits, the object exists and `IF NOT EXISTS` finds it). A race still lost after
 * {@link SETUP_ATTEMPTS} attempts is a transient `KmError`: a later call (a pipeline retry) succeeds.
 */
export async function withSetupLock<T>(
  client: SqlClient,
  fn: (tx: SqlQueryable) => Promise<T>,
  lockKey = SCHEMA_SETUP_LOCK_KEY,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey.toString()]);
        return fn(tx);
      });
    } catch (error) {
      if (!isSetupRace(error)) throw error;
      if (attempt >= SETUP_ATTEMPTS) {
        throw new KmError(
          'transient',
          `schema setup lost a creation race ${SETUP_ATTEMPTS} times (SQLSTATE ${sqlState(error)}); retry later`,
          {
            transient: true,
            cause: error,
            connector: 'postgres',
          },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}

/** The installed pgvector version, or undefined. */
async function installedVersion(db: SqlQueryable): Promise<string | undefined> {
  const { rows } = await db.query<{ extversion: string }>(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
  return rows[0]?.extversion;
}

/**
 * Makes sure pgvector is installed (creating it under the setup lock when `create` is set) and
 * returns what the connector can use of it. Refuses a database without pgvector, or with a
 * pgvector older than {@link MIN_PGVECTOR_VERSION}, with `not_configured` naming what is needed.
 */
export async function setUpPgvector(client: SqlClient, create: boolean): Promise<PgvectorFeatures> {
  let version = await installedVersion(client);
  if (version === undefined && create) {
    try {
      version = await withSetupLock(client, async (tx) => {
        await tx.query('CREATE EXTENSION IF NOT EXISTS vector');
        return installedVersion(tx);
      });
    } catch (error) {
      const state = sqlState(error);
      // 0A000 / 58P01: not installed on the server; 42501: not allowed to create it.
      if (state === '0A000' || state === '58P01' || state === '42501') {
        const why =
          state === '42501'
            ? 'this role may not create it (ask an administrator to run CREATE EXTENSION vector)'
            : 'it is not installed on the server';
        throw new KmError(
          'not_configured',
          `PostgreSQL has no pgvector extension ("vector"): ${why}; km needs pgvector >= ${MIN_PGVECTOR_VERSION}`,
          {
            connector: 'postgres',
            cause: error,
          },
        );
      }
      throw error;
    }
  }
  return pgvectorFeatures(version);
}
