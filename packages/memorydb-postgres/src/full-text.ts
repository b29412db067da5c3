import { InvalidInputError, type Logger } from '@km/core';
import { quoteIdent, secondaryIndexName } from './identifiers.js';
import { sqlState } from './postgres-errors.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';

/** Text search configuration of new full-text columns when none is given: stems English and drops its stop words. */
export const DEFAULT_TEXT_SEARCH_CONFIG = 'english';
/** Characters of a lexical query read (PostgreSQL refuses a tsvector over 1 MB; a longer query is cut here). */
export const MAX_LEXICAL_QUERY_CHARS = 32_768;

/** A configuration name, optionally schema-qualified: unquoted identifiers only. */
const CONFIG_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
/** The configuration in a generated column's expression, as `pg_get_expr` prints it. */
const CONFIG_IN_EXPRESSION = /to_tsvector\('((?:[^']|'')+)'::regconfig/;

/** Checks the form of a `textSearchConfig` option (whether it exists is checked on first use). */
export function checkTextSearchConfig(name: string): string {
  if (typeof name !== 'string' || !CONFIG_NAME.test(name)) {
    throw new InvalidInputError(
      'invalid_argument',
      `textSearchConfig must name a PostgreSQL text search configuration (such as 'english' or 'simple'), got ${JSON.stringify(name)}`,
      { connector: 'postgres' },
    );
  }
  return name;
}

/** A table's full-text column: the `tsvector` column PostgreSQL generates from a text column. */
export interface FullTextTable {
  /** `"schema"."table"`. */
  readonly table: string;
  /** The text column (unquoted). */
  readonly source: string;
  /** The generated `tsvector` column (unquoted). */
  readonly column: string;
}

/**
 * Adds the full-text column, kept by PostgreSQL from the text column with `config` (a name read
 * back from `regconfig`, spliced as a quoted literal: DDL takes no parameters, and a generated
 * column's expression must be a constant).
 */
export function addTextSearchColumn(t: FullTextTable, config: string): string {
  return `ALTER TABLE ${t.table} ADD COLUMN IF NOT EXISTS ${quoteIdent(t.column)} tsvector
      GENERATED ALWAYS AS (to_tsvector('${config.replace(/'/g, "''")}'::regconfig, ${quoteIdent(t.source)})) STORED`;
}

/** The GIN index of the full-text column. */
export function createTextSearchIndex(t: FullTextTable): string {
  return `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(t.table, 'text', t.column))} ON ${t.table} USING GIN (${quoteIdent(t.column)})`;
}

/**
 * The full-text columns of a driver's tables: which text search configuration each was built
 * with (read once per table), adding the column and its GIN index to a table that has none.
 * A column built with another configuration than `textSearchConfig` keeps its own (queries
 * must be tokenised like the documents were), with one warning per table.
 */
export class FullTextColumns {
  private readonly configs = new Map<string, Promise<string>>();

  private readonly warned = new Set<string>();

  constructor(
    private readonly config: string,
    private readonly logger: Logger,
    /** Add a missing column from a search (it rewrites the table under an exclusive lock). */
    private readonly upgradeOnSearch = false,
  ) {}

  /**
   * The configuration of the table's column; when the column is missing (a table from an earlier
   * version), adds it first under `lock` if `upgradeOnSearch`, else warns once and gives undefined.
   * Undefined, without a warning, when the table is missing.
   */
  async configOf(
    client: SqlClient,
    sql: FullTextTable,
    lock: (fn: (tx: SqlQueryable) => Promise<string>) => Promise<string>,
  ): Promise<string | undefined> {
    const known = this.configs.get(sql.table);
    if (known) return known;
    const found = await this.read(client, sql);
    if (found === undefined) {
      // A missing table (no collection yet, or dropped) has nothing to find or upgrade.
      const { rows } = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [sql.table]);
      if (!rows[0]?.found) return undefined;
    }
    if (found === undefined && !this.upgradeOnSearch) {
      if (!this.warned.has(sql.table)) {
        this.warned.add(sql.table);
        this.logger.warn(
          `[postgres] ${sql.table} has no full-text column (a table from an earlier version): lexical search finds nothing there and hybrid search is vector only. Add it with upgradeTablesOnSearch: true (the first lexical search then rewrites the table under a lock), or run: ${addTextSearchColumn(sql, this.config).replace(/\s+/g, ' ').replace(' IF NOT EXISTS', '')}`,
        );
      }
      return undefined;
    }
    const config =
      found !== undefined
        ? Promise.resolve(found)
        : lock(async (tx) => {
            const added = await this.add(tx, sql);
            // Statistics of the new column, which lexical search reads on a large table.
            await tx.query(`ANALYZE ${sql.table}`);
            return added;
          });
    this.configs.set(sql.table, config);
    config.catch(() => this.configs.delete(sql.table));
    return config;
  }

  /** Adds the column and its index to a table when missing (call under the table's lock); returns its configuration. */
  async add(tx: SqlQueryable, sql: FullTextTable): Promise<string> {
    const existing = await this.read(tx, sql);
    if (existing !== undefined) return existing;
    const config = await this.resolve(tx);
    await tx.query(addTextSearchColumn(sql, config));
    await tx.query(createTextSearchIndex(sql));
    this.configs.set(sql.table, Promise.resolve(config));
    return config;
  }

  /** True when the table has the full-text column. */
  async has(db: SqlQueryable, sql: FullTextTable): Promise<boolean> {
    return (await this.read(db, sql)) !== undefined;
  }

  /** Runs a lexical query; a missing column (dropped, or its creation rolled back) is forgotten, so the next search looks again. */
  async run<T>(table: string, query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      if (sqlState(error) === '42703') this.forget(table);
      throw error;
    }
  }

  /** Forgets a table (dropped). */
  forget(table: string): void {
    this.configs.delete(table);
  }

  /** The configuration of the table's column, or undefined when it has none (or the table is missing). */
  private async read(db: SqlQueryable, sql: FullTextTable): Promise<string | undefined> {
    const { rows } = await db.query<{ generated: string; expression: string | null }>(
      `SELECT a.attgenerated AS generated, pg_get_expr(d.adbin, d.adrelid) AS expression
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND NOT a.attisdropped`,
      [sql.table, sql.column],
    );
    if (!rows[0]) return undefined;
    const built = CONFIG_IN_EXPRESSION.exec(rows[0].expression ?? '')?.[1]?.replace(/''/g, "'");
    // A column of the user's own (not generated from a constant configuration): trust the option.
    if (built === undefined) return this.resolve(db);
    const wanted = await this.resolve(db);
    if (built !== wanted) {
      this.logger.warn(
        `[postgres] the full-text column of ${sql.table} was built with text search configuration "${built}", not "${wanted}" (textSearchConfig): lexical searches use "${built}"; to switch, drop the column (ALTER TABLE ${sql.table} DROP COLUMN ${quoteIdent(sql.column)}) and add it again (upgradeTablesOnSearch, or the ALTER TABLE the next search's warning gives)`,
      );
    }
    return built;
  }

  /** The configuration option as PostgreSQL names it; `invalid_argument` when it does not exist. */
  private async resolve(db: SqlQueryable): Promise<string> {
    try {
      const { rows } = await db.query<{ name: string }>('SELECT $1::regconfig::text AS name', [this.config]);
      return rows[0]!.name;
    } catch (error) {
      if (sqlState(error) !== '42704') throw error;
      throw new InvalidInputError(
        'invalid_argument',
        `textSearchConfig "${this.config}" is not a text search configuration of this database (see pg_ts_config)`,
        { connector: 'postgres', cause: error },
      );
    }
  }
}
