import type { Logger } from '@km/core';
import { withSetupLock } from '../schema-setup.js';
import { openSqlClient } from '../open-sql-client.js';
import type { SqlClient } from '../sql-client.js';
import type { PostgresContentStorageOptions } from './content-storage-options.js';
import type { ContentStatements } from './content-statements.js';

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

  private open(): Promise<SqlClient> {
    return openSqlClient(this.options, this.onIdleError);
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
