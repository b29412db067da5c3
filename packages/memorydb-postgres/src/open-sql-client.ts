import { clientFromPGlite, clientFromPool, type PGliteLike, type PgPoolLike, type SqlClient } from './sql-client.js';

/** Idle time of a pooled socket before TCP keep-alive probes start. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;
/** Default `queryTimeoutMs`. */
const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

/** How to reach PostgreSQL, as the memory DB and the content storage take it: one of `pglite`, `pool`, `connectionString`. */
export interface SqlClientSource {
  pglite?: PGliteLike;
  pool?: PgPoolLike;
  connectionString?: string;
  maxConnections?: number;
  connectionTimeoutMs?: number;
  queryTimeoutMs?: number;
}

/**
 * The client of a source: PGlite given in; a pool given in (left open by `close()`), which gets
 * `onIdleError` when it has no `error` listener; or a pool made from `connectionString` (ended
 * by `close()`). Without an `error` listener `pg` throws a dead idle connection as an uncaught
 * exception and ends the process.
 */
export async function openSqlClient(source: SqlClientSource, onIdleError: (error: Error) => void): Promise<SqlClient> {
  if (source.pglite) return clientFromPGlite(source.pglite);
  if (source.pool) {
    if (source.pool.listenerCount?.('error') === 0) source.pool.on?.('error', onIdleError);
    return clientFromPool(source.pool, false);
  }
  const { default: pg } = await import('pg');
  const queryTimeout = source.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: source.connectionString,
    max: source.maxConnections ?? 10,
    connectionTimeoutMillis: source.connectionTimeoutMs ?? 10_000,
    // Notices a peer that vanished without closing (failover, network cut) after 10 s idle, not the OS's 2 h.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
    // An answer that never comes (half-open connection) fails the query as transient.
    query_timeout: queryTimeout || undefined,
  });
  pool.on('error', onIdleError);
  const client = clientFromPool(pool as unknown as PgPoolLike, true);
  client.withoutQueryTimeout = async (fn) => {
    const long = new pg.Pool({
      connectionString: source.connectionString,
      max: 1,
      connectionTimeoutMillis: source.connectionTimeoutMs ?? 10_000,
    });
    long.on('error', onIdleError);
    try {
      return await fn(clientFromPool(long as unknown as PgPoolLike, true));
    } finally {
      await long.end().catch(() => undefined);
    }
  };
  return client;
}
