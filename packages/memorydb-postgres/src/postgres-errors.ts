import { IndexNotFoundError, KmError } from '@km/core';

const CONNECTOR = 'postgres';

/** SQLSTATE of a driver error (or Node's error code, such as `ECONNREFUSED`), if any. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the error says the table does not exist. */
/** SQLSTATEs of a refused login (28P01 wrong password, 28000 role or pg_hba refusal) or a missing privilege (42501). */
export const AUTH_STATES: ReadonlySet<string> = new Set(['28P01', '28000', '42501']);

export const isUndefinedTable = (error: unknown): boolean => sqlState(error) === '42P01';

/**
 * SQLSTATE classes worth retrying: 08 connection, 40 rollback (serialization, deadlock),
 * 53 resources, 57P shutdown/restart. Not 08P01 (protocol violation: the same request fails
 * again) nor 57P04 (the database was dropped).
 */
const TRANSIENT_STATE = /^(08|40|53|57P)/;
const PERMANENT_STATES = new Set(['08P01', '57P04']);
/** A PostgreSQL SQLSTATE: five digits or upper-case letters, at least one a digit (Node's codes, like `EPIPE`, have none). */
const SQLSTATE = /^(?=.*\d)[0-9A-Z]{5}$/;
/** Node socket errors of a database that is down, restarting or unreachable. */
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * What `pg` and `pg-pool` say, in errors without a SQLSTATE, when a connection died, could not
 * be made in time, or a query got no answer within `query_timeout` (a half-open connection).
 */
const TRANSIENT_MESSAGE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection terminated|connection timeout|timeout exceeded when trying to connect|encountered a connection error and is not queryable|Query read timeout|terminating connection|the database system is (starting up|shutting down|in recovery mode)/i;

/** True when `pg` gave up waiting for a query's answer (`query_timeout`): the connection may be half-open. */
export const isQueryTimeout = (error: unknown): boolean =>
  error instanceof Error && sqlState(error) === undefined && error.message === 'Query read timeout';

/**
 * True when retrying later may succeed: the database is down, restarting, failing over, or
 * dropped the connection (idle timeout, admin command), or the transaction lost a race.
 * An error with a SQLSTATE is judged by it alone (its message may echo user text); message
 * patterns apply only to driver errors without one.
 */
export function isTransientError(error: unknown): boolean {
  if (error instanceof KmError) return error.transient;
  if (error instanceof AggregateError && error.errors.some(isTransientError)) return true; // one error per address tried
  const state = sqlState(error) ?? '';
  if (TRANSIENT_SOCKET_CODES.has(state)) return true;
  if (SQLSTATE.test(state)) return TRANSIENT_STATE.test(state) && !PERMANENT_STATES.has(state);
  const message = error instanceof Error ? error.message : String(error);
  return TRANSIENT_MESSAGE.test(message);
}

/**
 * True for the errors two processes get when they create the same extension, type or table at
 * once: unique violation (23505, on a catalog), duplicate table (42P07), duplicate object (42710).
 * Schema setup retries them (after waiting on the advisory lock, the object exists).
 */
export function isSetupRace(error: unknown): boolean {
  const state = sqlState(error);
  return state === '23505' || state === '42P07' || state === '42710';
}

/** Turns driver errors into km errors: missing table, wrong vector size, connection trouble (transient). */
export function translateError(error: unknown, index: string): unknown {
  if (error instanceof KmError) return error;
  if (isUndefinedTable(error)) return new IndexNotFoundError(index, { connector: CONNECTOR, cause: error });
  const message =
    error instanceof Error ? error.message || (error instanceof AggregateError ? error.errors.map(String).join('; ') : '') : String(error);
  const dims = /expected (\d+) dimensions, not (\d+)/.exec(message);
  if (dims) {
    return new KmError('vector_size_mismatch', `index "${index}" has vector size ${dims[1]}, got ${dims[2]}`, {
      connector: CONNECTOR,
      cause: error,
    });
  }
  if (isTransientError(error)) {
    return new KmError('transient', `PostgreSQL unavailable, retry later: ${message || sqlState(error) || 'connection error'}`, {
      connector: CONNECTOR,
      cause: error,
      transient: true,
    });
  }
  return error;
}
