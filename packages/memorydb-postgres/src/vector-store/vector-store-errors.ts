import { InvalidInputError, KmError } from '@km/core';
import { AUTH_STATES, isUndefinedTable, sqlState, translateError } from '../postgres-errors.js';

const CONNECTOR = 'postgres';

/** SQLSTATEs of values or columns that do not fit: undefined column (42703), datatype mismatch (42804), wrong object type (42809). */
const MISFIT_STATES = new Set(['42703', '42804', '42809']);

/** The write went to a collection that does not exist. */
export function collectionNotFound(collection: string, cause?: unknown): KmError {
  return new KmError('collection_not_found', `collection "${collection}" does not exist; create it with ensureExists()`, {
    connector: CONNECTOR,
    cause,
  });
}

/**
 * Turns what `pg` or PGlite threw into a km error, as the memory DB does (the package's
 * `translateError`): connection trouble, restarts, failover, deadlocks → `transient`. Besides:
 * a missing table → `collection_not_found`; values the table refuses (data exceptions 22xxx,
 * constraint violations 23xxx such as a NOT NULL column the definition does not map) or a
 * column that is not there → `invalid_argument`; a refused login or privilege → `unauthorized`;
 * anything else → `upstream_error` with PostgreSQL's message. Never a raw driver error.
 */
export function translateVectorStoreError(error: unknown, collection: string): KmError {
  if (error instanceof KmError) return error;
  if (isUndefinedTable(error)) return collectionNotFound(collection, error);
  const state = sqlState(error) ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const where = collection ? `collection "${collection}": ` : '';
  if (state.startsWith('22') || state.startsWith('23') || MISFIT_STATES.has(state)) {
    return new InvalidInputError('invalid_argument', `${where}PostgreSQL refused it: ${message} (SQLSTATE ${state})`, {
      connector: CONNECTOR,
      cause: error,
    });
  }
  if (AUTH_STATES.has(state)) {
    return new KmError('unauthorized', `${where}PostgreSQL refused the role: ${message}`, { connector: CONNECTOR, cause: error });
  }
  const translated = translateError(error, collection);
  if (translated instanceof KmError) return translated;
  return new KmError('upstream_error', `${where}PostgreSQL failed: ${message}${state ? ` (SQLSTATE ${state})` : ''}`, {
    connector: CONNECTOR,
    cause: error,
  });
}
