import { IndexNotFoundError, KmError } from '@km/core';
import { isNetworkError } from '@km/core/connector';
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  ErrorReply,
  MultiErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
} from 'redis';

const CONNECTOR = 'redis';

/** The message of an error, or its string. */
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * True when RediSearch says the index does not exist. The wording varies across versions:
 * `Unknown index name` / `<idx>: no such index` before Redis 8.x's error codes, then
 * `SEARCH_INDEX_NOT_FOUND ...` (`Index not found`, `SEARCH_INDEX_NOT_FOUND: <idx>`).
 */
export function isMissingIndex(error: unknown): boolean {
  return error instanceof ErrorReply && /unknown index name|no such index|index not found|SEARCH_INDEX_NOT_FOUND/i.test(error.message);
}

/** True when the server does not know a command (no search module). */
export function isUnknownCommand(error: unknown): boolean {
  return error instanceof ErrorReply && /^ERR unknown command/i.test(error.message);
}

/** Server replies that mean "try again later": the server is loading, busy, read-only or failing over. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN|READONLY)\b/;

/** Connection trouble: refused, reset, timeouts, a closed or offline client, a failed reconnect. */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof ErrorReply) return false;
  if (
    error instanceof ConnectionTimeoutError ||
    error instanceof SocketTimeoutError ||
    error instanceof SocketClosedUnexpectedlyError ||
    error instanceof ClientClosedError ||
    error instanceof ClientOfflineError ||
    error instanceof ReconnectStrategyError
  ) {
    return true;
  }
  if (isNetworkError(error)) return true;
  return /Connection timeout|Socket timeout|Socket closed unexpectedly|client is closed|client is offline|Disconnects client|cannot reach Redis/i.test(
    messageOf(error),
  );
}

/**
 * node-redis errors → km errors: a missing index is IndexNotFoundError, NOAUTH / WRONGPASS /
 * NOPERM unauthorized, connection trouble and LOADING / BUSY / TRYAGAIN... transient; any other
 * server reply upstream_error. The first failed command of a MULTI is translated.
 */
export function translateRedisError(error: unknown, index: string): unknown {
  if (error instanceof KmError) return error;
  if (error instanceof MultiErrorReply) {
    const first = error.errorIndexes[0];
    return translateRedisError(first === undefined ? new ErrorReply(error.message) : error.replies[first], index);
  }
  // A handshake refusal (AUTH) ends the reconnect strategy at once: translate the server's reply.
  if (error instanceof ReconnectStrategyError && error.socketError instanceof ErrorReply)
    return translateRedisError(error.socketError, index);
  const message = messageOf(error);
  if (isMissingIndex(error)) return new IndexNotFoundError(index, { connector: CONNECTOR, cause: error });
  if (error instanceof ErrorReply && /^(NOAUTH|WRONGPASS|NOPERM)\b/.test(message)) {
    return new KmError('unauthorized', `Redis refused the credentials or command: ${message}`, { connector: CONNECTOR, cause: error });
  }
  if ((error instanceof ErrorReply && TRANSIENT_REPLY.test(message)) || isConnectionError(error)) {
    return new KmError('transient', `Redis: ${message}`, { connector: CONNECTOR, cause: error, transient: true });
  }
  return new KmError('upstream_error', `Redis: ${message}`, { connector: CONNECTOR, cause: error });
}
