import type { Logger } from '@km/core';
import { withSetupLock } from '../schema-setup.js';
import { clientFromPGlite, clientFromPool, type PgPoolLike, type SqlClient } from '../sql-client.js';
import type { PostgresContentStorageOptions } from './content-storage-options.js';
import type { ContentStatements } from './content-statements.js';

/** Idle time of a pooled socket before TCP keep-alive probes start (as the memory DB's pool). */
const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;
const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

/**
 * The content storage's connection, opened on first use (again after a failed attempt): a pool
 * made from `connectionString`, a pool or PGlite given in. The tables are created, if missing,
 * before the first query (under the package's schema setup lock), and again after
 * {@link ContentConnection.forgetTables} (an administrator dropped them).
 */
export class ContentConnection {
  private opening: Promise<SqlClient> | undefined;
  private settingUp: Promise<void> | undefined;

  constructor(
    private readonly options: PostgresContentStorageOptions,
    private readonly sql: ContentStatements,
    private readonly logger: Logger,
  ) {}

  async client(): Promise<SqlClient> {
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    const client = await this.opening;
    this.settingUp ??= this.setUp(client).catch((error: unknown) => {
      this.settingUp = undefined;
      throw error;
    });
    await this.settingUp;
    return client;
  }

  /** The tables are gone: the next call creates them again. */
  forgetTables(): void {
    this.settingUp = undefined;
  }

  /** Ends the pool made from `connectionString` (a pool or PGlite given in is left open). */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    this.settingUp = undefined;
    if (opening) await (await opening.catch(() => undefined))?.close();
  }

  private async open(): Promise<SqlClient> {
    const options = this.options;
    if (options.pglite) return clientFromPGlite(options.pglite);
    if (options.pool) {
      if (options.pool.listenerCount?.('error') === 0) options.pool.on?.('error', this.onIdleError);
      return clientFromPool(options.pool, false);
    }
    const { default: pg } = await import('pg');
    const queryTimeout = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
      query_timeout: queryTimeout || undefined,
    });
    pool.on('error', this.onIdleError);
    return clientFromPool(pool as unknown as PgPoolLike, true);
  }

  private async setUp(client: SqlClient): Promise<void> {
    await withSetupLock(client, async (tx) => {
      for (const statement of this.sql.setup()) await tx.query(statement);
    });
  }

  /** A pooled connection died while idle: the pool already dropped it and reconnects on next use. */
  private readonly onIdleError = (error: Error): void => {
    this.logger.warn(`[postgres] content storage: an idle connection was lost; the pool reconnects on next use: ${error.message}`);
  };
}
