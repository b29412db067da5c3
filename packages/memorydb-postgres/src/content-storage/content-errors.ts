import { KmError } from '@km/core';
import { AUTH_STATES, isTransientError, sqlState } from '../postgres-errors.js';

const CONNECTOR = 'postgres';

/** SQLSTATEs of a server out of connection slots: the nearest PostgreSQL has to throttling. */
const THROTTLE_STATES = new Set(['53300']);

/** An error of the caller's content stream, carried through the transaction and handed back unchanged. */
export class SourceStreamError extends Error {
  constructor(readonly source: unknown) {
    super('the content stream failed', { cause: source });
  }
}

/** The file a read was reading was replaced or deleted in the meantime (its chunks are gone). */
export function replacedWhileReading(index: string, documentId: string, fileName: string): KmError {
  return new KmError(
    'transient',
    `file "${fileName}" of document "${documentId}" in index "${index}" was replaced or deleted while it was read; read it again`,
    { connector: CONNECTOR, transient: true },
  );
}

export function fileNotFound(index: string, documentId: string, fileName: string): KmError {
  return new KmError('file_not_found', `file "${fileName}" of document "${documentId}" in index "${index}" not found`, {
    connector: CONNECTOR,
  });
}

/**
 * Turns what `pg` or PGlite threw into a km error: login or privilege refusals → `unauthorized`,
 * no connection slot left → `rate_limited` (transient), connection trouble, failover, deadlock or
 * serialisation failure → `transient`. The caller's own stream error comes back unchanged; other
 * errors (a bug in a statement) are returned as they are.
 */
export function translateStorageError(error: unknown): unknown {
  if (error instanceof SourceStreamError) return error.source;
  if (error instanceof KmError) return error;
  const state = sqlState(error);
  const message = error instanceof Error ? error.message || state || 'connection error' : String(error);
  if (state && AUTH_STATES.has(state)) {
    return new KmError('unauthorized', `PostgreSQL refused the content storage's role: ${message}`, { connector: CONNECTOR, cause: error });
  }
  if (state && THROTTLE_STATES.has(state)) {
    return new KmError('rate_limited', `PostgreSQL has no connection slot left, retry later: ${message}`, {
      connector: CONNECTOR,
      cause: error,
      transient: true,
    });
  }
  if (isTransientError(error)) {
    return new KmError('transient', `PostgreSQL unavailable, retry later: ${message}`, {
      connector: CONNECTOR,
      cause: error,
      transient: true,
    });
  }
  return error;
}

/** The tables were dropped under a running storage: this call fails, the next creates them again. */
export function tablesMissing(cause: unknown): KmError {
  return new KmError('transient', 'the content tables are missing (dropped?); they are created again on the next call', {
    connector: CONNECTOR,
    cause,
    transient: true,
  });
}
