import type { Logger } from '@km/core';
import type { PgvectorFeatures } from './pgvector-version.js';
import type { PostgresMemoryDbOptions } from './postgres-config.js';
import { translateError } from './postgres-errors.js';
import { setUpPgvector } from './schema-setup.js';
import { openSqlClient } from './open-sql-client.js';
import type { SqlClient } from './sql-client.js';

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
    const client = await openSqlClient(options, this.onIdleError);
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
