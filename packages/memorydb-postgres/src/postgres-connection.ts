import type { Logger } from '@km/core';
import type { PgvectorFeatures } from './pgvector-version.js';
import type { PostgresMemoryDbOptions } from './postgres-config.js';
import { translateError } from './postgres-errors.js';
import { setUpPgvector } from './schema-setup.js';
import { clientFromPGlite, clientFromPool, type PgPoolLike, type SqlClient } from './sql-client.js';

/** Idle time of a pooled socket before TCP keep-alive probes start. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;
/** Default `queryTimeoutMs`. */
const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

/**
 * The connector's connection, opened on first use (once for all callers, again after a failed
 * attempt): a pool it creates from `connectionString`, a pool or PGlite given in; pgvector is
 * set up and its features read before the first query.
 */
export class PostgresConnection {
  /** pgvector's features, known once connected. */
  features: PgvectorFeatures | undefined;
  private connecting: Promise<SqlClient> | undefined;

  constructor(
    private readonly options: PostgresMemoryDbOptions,
    private readonly logger: Logger,
  ) {}

  client(): Promise<SqlClient> {
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw translateError(error, '');
    });
    return this.connecting;
  }

  /** Closes the pool made from `connectionString` (a pool or PGlite given in is left open). */
  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    if (connecting) await (await connecting).close();
  }

  private async connect(): Promise<SqlClient> {
    const options = this.options;
    let client: SqlClient;
    if (options.pglite) client = clientFromPGlite(options.pglite);
    else if (options.pool) {
      if (options.pool.listenerCount?.('error') === 0) options.pool.on?.('error', this.onIdleError);
      client = clientFromPool(options.pool, false);
    } else {
      const { default: pg } = await import('pg');
      const queryTimeout = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
      const pool = new pg.Pool({
        connectionString: options.connectionString,
        max: options.maxConnections ?? 10,
        connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
        // Notices a peer that vanished without closing (failover, network cut) after 10 s idle, not the OS's 2 h.
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
        // An answer that never comes (half-open connection) fails the query as transient.
        query_timeout: queryTimeout || undefined,
      });
      pool.on('error', this.onIdleError);
      client = clientFromPool(pool as unknown as PgPoolLike, true);
    }
    try {
      this.features = await setUpPgvector(client, options.createExtension ?? true);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /**
   * A pooled connection died while idle (database restart, failover, idle timeout): the pool has
   * already dropped it and opens a new one on next use, so this only logs. Without this
   * listener `pg` would throw it as an uncaught exception and end the process.
   */
  private readonly onIdleError = (error: Error): void => {
    this.logger.warn(`[postgres] an idle connection was lost; the pool reconnects on next use: ${error.message}`);
  };
}
