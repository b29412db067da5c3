import { type KmError, isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { isSetupRace, isTransientError, translateError } from '../src/postgres-errors.js';
import { SETUP_ATTEMPTS, withSetupLock } from '../src/schema-setup.js';
import type { SqlClient, SqlQueryable } from '../src/sql-client.js';

const withCode = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

/** Expects each error to be judged not worth a retry, and handed back by translateError as it is. */
function expectPassedThrough(errors: Error[]): void {
  for (const error of errors) {
    expect(isTransientError(error), error.message).toBe(false);
    expect(translateError(error, 'docs')).toBe(error);
  }
}

describe('which PostgreSQL errors are worth a retry', () => {
  it('a database that is down, restarting or dropped the connection is transient', () => {
    const transient = [
      withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      withCode('ECONNRESET', 'read ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('Query read timeout'),
      withCode('57P05', 'terminating connection due to idle-session timeout'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006', 'connection failure'),
      withCode('40001', 'could not serialize access'),
      withCode('53300', 'too many connections'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], ''),
    ];
    for (const error of transient) {
      expect(isTransientError(error), error.message).toBe(true);
      const translated = translateError(error, 'docs');
      expect(isKmError(translated, 'transient') && (translated as KmError).transient, error.message).toBe(true);
    }
  });

  it('bad SQL, constraint and permission errors are not', () => {
    expectPassedThrough([
      withCode('42601', 'syntax error'),
      withCode('23505', 'duplicate key'),
      withCode('42501', 'permission denied'),
      new Error('nope'),
    ]);
  });

  it('an error with a SQLSTATE is judged by it, not by a message that may echo user text', () => {
    expectPassedThrough([
      withCode('22P02', 'invalid input syntax for type json: "terminating connection"'),
      withCode('23505', 'duplicate key value (id)=(Connection terminated) already exists'),
      withCode('P0001', 'the database system is starting up'), // RAISE EXCEPTION in a user function
      withCode('42601', 'syntax error at or near "ECONNRESET"'),
    ]);
  });

  it('a protocol violation (08P01) and a dropped database (57P04) are permanent', () => {
    for (const error of [
      withCode('08P01', 'invalid frontend message type'),
      withCode('57P04', 'terminating connection because the database was dropped'),
    ]) {
      expect(isTransientError(error), error.message).toBe(false);
    }
  });

  it('the races of concurrent schema setup are retryable: 23505, 42P07, 42710', () => {
    expect(['23505', '42P07', '42710'].map((c) => isSetupRace(withCode(c)))).toEqual([true, true, true]);
    expect(['42601', '0A000', '08006'].map((c) => isSetupRace(withCode(c)))).toEqual([false, false, false]);
  });
});

describe('withSetupLock', () => {
  const fakeClient = (failures: Error[]) => {
    const statements: string[] = [];
    let calls = 0;
    const client: SqlClient = {
      query: async () => ({ rows: [] }),
      close: async () => undefined,
      async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
        const tx: SqlQueryable = {
          query: async <R>(text: string) => {
            statements.push(text);
            if (!text.includes('advisory') && calls++ < failures.length) throw failures[calls - 1];
            return { rows: [] as R[] };
          },
        };
        return fn(tx);
      },
    };
    return { client, statements };
  };

  it('takes the advisory lock first and retries a lost creation race', async () => {
    const { client, statements } = fakeClient([
      withCode('23505', 'duplicate key value violates unique constraint "pg_extension_name_index"'),
      withCode('42710'),
    ]);
    await withSetupLock(client, (tx) => tx.query('CREATE EXTENSION IF NOT EXISTS vector'));
    expect(statements.filter((s) => s.includes('pg_advisory_xact_lock'))).toHaveLength(3);
    expect(statements.filter((s) => s.startsWith('CREATE'))).toHaveLength(3);
    expect(statements[0]).toContain('pg_advisory_xact_lock');
  });

  it('gives up after a bounded number of attempts with a transient error, and does not retry other errors', async () => {
    const races = Array.from({ length: SETUP_ATTEMPTS }, () => withCode('42P07'));
    const lost = fakeClient(races);
    const error = await withSetupLock(lost.client, (tx) => tx.query('CREATE TABLE t ()')).catch((e: unknown) => e);
    expect(isKmError(error, 'transient') && (error as KmError).transient).toBe(true);
    expect((error as KmError).connector).toBe('postgres');
    expect((error as Error).cause).toBe(races[SETUP_ATTEMPTS - 1]);
    expect(isTransientError(error)).toBe(true);
    expect(lost.statements.filter((s) => s.startsWith('CREATE'))).toHaveLength(SETUP_ATTEMPTS);
    const other = fakeClient([withCode('42601'), withCode('42601')]);
    await expect(withSetupLock(other.client, (tx) => tx.query('CREATE x'))).rejects.toMatchObject({ code: '42601' });
    expect(other.statements.filter((s) => s.startsWith('CREATE'))).toHaveLength(1);
  });
});
