import { createConsoleLogger, IndexNotFoundError, InvalidInputError, KmError, type Logger, type MemoryRecord } from '@km/core';
import { compareRecordIds, decodeTags, encodeTags, indexNameLimit, indexNamesUnderPrefix } from '@km/core/connector';
import type { CheckedRecord, DriverLexicalSearch, DriverList, DriverSearch, MemoryDbDriver } from '@km/core/connector';
import pgvector from 'pgvector';
import { toSqlCondition } from './filters.js';
import { checkTextSearchConfig, DEFAULT_TEXT_SEARCH_CONFIG, FullTextColumns, MAX_LEXICAL_QUERY_CHARS } from './full-text.js';
import { MAX_IDENTIFIER_BYTES, qualified, quoteIdent } from './identifiers.js';
import { DEFAULT_COLUMNS, type PostgresColumns, type PostgresMemoryDbOptions } from './postgres-config.js';
import { PostgresConnection } from './postgres-connection.js';
import { translateError } from './postgres-errors.js';
import { PostgresStatements } from './postgres-statements.js';
import { tableLockKey, withSetupLock } from './schema-setup.js';
import type { SqlQueryable } from './sql-client.js';

const CONNECTOR = 'postgres';
/** pgvector's HNSW index takes vectors of at most 2000 dimensions. */
const HNSW_MAX_DIMENSIONS = 2000;

/** Characters where `COLLATE "C"` (UTF-8 bytes, i.e. code points) and km's order (UTF-16 code units) can disagree. */
const ORDER_SENSITIVE = /[\uD800-\uFFFF]/;

interface Row {
  id: string;
  tags: string[] | null;
  payload: Record<string, unknown> | string | null;
  embedding?: string | null;
  relevance?: number;
}

/**
 * The PostgreSQL + pgvector driver of {@link PostgresMemoryDb}: one table per index (id,
 * vector(n), `key:value` text[] tags with a GIN index, jsonb payload, text content and its
 * generated, GIN-indexed tsvector), an HNSW cosine index, filters as parameterised SQL,
 * relevance = 1 − cosine distance; lexical relevance = `ts_rank_cd` mapped to [0, 1).
 */
export class PostgresMemoryDbDriver implements MemoryDbDriver {
  readonly name = CONNECTOR;
  readonly indexNameLimit: { bytes: number; reason: string };
  readonly maxVectorSize = 16000;
  private readonly options: PostgresMemoryDbOptions;
  private readonly connection: PostgresConnection;
  private readonly logger: Logger;
  private readonly schema: string;
  private readonly prefix: string;
  private readonly columns: PostgresColumns;
  private readonly fullText: FullTextColumns;
  private recallCaveatLogged = false;

  constructor(options: PostgresMemoryDbOptions) {
    if (!options.pool && !options.connectionString && !options.pglite) {
      throw new InvalidInputError('invalid_argument', 'give PostgresMemoryDb a pool, a connectionString or a pglite instance', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.schema = options.schema ?? 'public';
    this.prefix = options.tablePrefix ?? 'km-';
    this.columns = { ...DEFAULT_COLUMNS, ...options.columns };
    this.logger = options.logger ?? createConsoleLogger();
    this.connection = new PostgresConnection(options, this.logger);
    for (const column of Object.values(this.columns)) quoteIdent(column);
    const textSearchConfig = checkTextSearchConfig(options.textSearchConfig ?? DEFAULT_TEXT_SEARCH_CONFIG);
    this.fullText = new FullTextColumns(textSearchConfig, this.columns.textSearch, this.logger, options.upgradeTablesOnSearch === true);
    this.indexNameLimit = indexNameLimit('PostgreSQL identifiers', MAX_IDENTIFIER_BYTES, this.prefix);
  }

  async vectorSize(index: string): Promise<number | undefined> {
    return this.run(index, (db) => this.readVectorSize(db, this.statements(index).table));
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const sql = this.statements(index);
    // Serialises concurrent creators of the same table (CREATE TABLE IF NOT EXISTS alone races);
    // a race lost anyway (23505, 42P07, 42710) is retried, and then finds the table.
    const client = await this.connection.client();
    await this.guard(index, () =>
      withSetupLock(
        client,
        async (tx) => {
          const existing = await this.readVectorSize(tx, sql.table);
          if (existing !== undefined && existing !== vectorSize) {
            throw new KmError('vector_size_mismatch', `index "${index}" has vector size ${existing}, got ${vectorSize}`, {
              connector: CONNECTOR,
            });
          }
          if (existing !== undefined) return;
          await tx.query(sql.createTable(vectorSize));
          await tx.query(sql.createTagIndex());
          await this.fullText.add(tx, sql);
          if ((this.options.createVectorIndex ?? true) && vectorSize <= HNSW_MAX_DIMENSIONS) {
            await tx.query(sql.createVectorIndex(this.options.hnsw?.m ?? 16, this.options.hnsw?.efConstruction ?? 64));
          }
        },
        tableLockKey('table', sql.table),
      ),
    );
  }

  async listIndexes(): Promise<string[]> {
    const { rows } = await this.run('', (db) =>
      db.query<{ relname: string }>(
        `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
        [this.schema],
      ),
    );
    const tables = new Set(rows.map((r) => r.relname));
    // Indexes mapped to tables of their own are found by their mapping, not by the prefix.
    const names = new Set(indexNamesUnderPrefix(tables, this.prefix).filter((name) => !this.options.tables?.[name]));
    for (const [index, table] of Object.entries(this.options.tables ?? {})) if (tables.has(table)) names.add(index);
    return [...names];
  }

  async deleteIndex(index: string): Promise<void> {
    const sql = this.statements(index);
    await this.run(index, (db) => db.query(sql.drop()));
    this.fullText.forget(sql.table);
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    const sql = this.statements(index).upsert();
    const size = Math.max(1, this.options.batchSize ?? 500);
    const insert = (db: SqlQueryable, batch: CheckedRecord[]) =>
      db.query(sql, [
        batch.map((r) => r.id),
        batch.map((r) => pgvector.toSql(Array.from(r.vector))),
        batch.map((r) => JSON.stringify(encodeTags(r.tags))),
        batch.map((r) => r.payloadJson),
        batch.map((r) => textOf(r.payloadJson)),
      ]);
    // One statement is atomic on its own; several share a transaction so a batch lands whole.
    if (records.length <= size) await this.run(index, (db) => insert(db, records));
    else
      await this.transaction(index, async (tx) => {
        for (let i = 0; i < records.length; i += size) await insert(tx, records.slice(i, i + size));
      });
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const sql = this.statements(index);
    const where = toSqlCondition(query.filters, sql.tagsColumn, 4);
    const efSearch = Math.min(1000, Math.max(query.limit, Math.floor(this.options.efSearch ?? 100)));
    const iterativeScan = this.iterativeScan();
    const rows = await this.transaction(index, async (tx) => {
      await tx.query(`SET LOCAL hnsw.ef_search = ${efSearch}`);
      // Filters and minRelevance are applied during the index scan, not after a fixed top-k (pgvector >= 0.8).
      if (iterativeScan) await tx.query(`SET LOCAL hnsw.iterative_scan = strict_order`);
      const vector = pgvector.toSql(Array.from(query.vector!));
      const result = await tx.query<Row>(sql.search(where.sql, query.withEmbeddings), [
        vector,
        query.minRelevance,
        query.limit,
        ...where.params,
      ]);
      return result.rows;
    });
    return rows.map((row) => [toRecord(row), Number(row.relevance)]);
  }

  async lexicalSearch(index: string, query: DriverLexicalSearch): Promise<Array<[MemoryRecord, number]>> {
    const sql = this.statements(index);
    const where = toSqlCondition(query.filters, sql.tagsColumn, 5);
    const client = await this.connection.client();
    const rows = await this.guard(index, async () => {
      // A table from an earlier version has no full-text column: added here only with upgradeTablesOnSearch.
      const config = await this.fullText.configOf(client, sql, (fn) => withSetupLock(client, fn, tableLockKey('table', sql.table)));
      if (config === undefined)
        return (await this.vectorSize(index)) === undefined ? Promise.reject(new IndexNotFoundError(index, { connector: CONNECTOR })) : [];
      const text = query.text.slice(0, MAX_LEXICAL_QUERY_CHARS).replace(/[\uD800-\uDBFF]$/, '');
      const args = [config, text, query.limit, sql.table, ...where.params];
      return (await this.fullText.run(sql.table, () => client.query<Row>(sql.lexicalSearch(where.sql, query.withEmbeddings), args))).rows;
    });
    return rows.map((row) => [toRecord(row), Number(row.relevance)]);
  }

  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const sql = this.statements(index);
    const where = toSqlCondition(query.filters, sql.tagsColumn, 1);
    const read = async (limit: number | undefined) =>
      (await this.run(index, (db) => db.query<Row>(sql.list(where.sql, query.withEmbeddings, limit), where.params))).rows;
    let rows = await read(query.limit);
    // The "C" order is km's unless an id holds a character from U+E000 up or outside the BMP; when
    // none of the first `limit` does, no other id comes before them in km's order either.
    if (rows.some((row) => ORDER_SENSITIVE.test(row.id))) {
      if (query.limit !== undefined) rows = await read(undefined);
      rows = rows.sort((a, b) => compareRecordIds(a.id, b.id)).slice(0, query.limit);
    }
    for (const row of rows) yield toRecord(row);
  }

  async delete(index: string, id: string): Promise<void> {
    await this.run(index, (db) => db.query(this.statements(index).delete(), [id]));
  }

  /** Closes the pool the connector created from `connectionString` (a pool or PGlite given in is left open). */
  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Runs `fn` on the connection, turning driver errors into km errors (a missing table is IndexNotFoundError, connection trouble transient). */
  private async run<T>(index: string, fn: (db: SqlQueryable) => Promise<T>): Promise<T> {
    const client = await this.connection.client();
    return this.guard(index, () => fn(client));
  }

  private async transaction<T>(index: string, fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
    const client = await this.connection.client();
    return this.guard(index, () => client.transaction(fn));
  }

  private async guard<T>(index: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw translateError(error, index);
    }
  }

  /** True when searches may use `hnsw.iterative_scan`; logs the recall caveat of older pgvector once. */
  private iterativeScan(): boolean {
    const features = this.connection.features;
    if (!features || features.iterativeScan) return true;
    if (!this.recallCaveatLogged) {
      this.recallCaveatLogged = true;
      this.logger.warn(
        `[postgres] pgvector ${features.version} has no hnsw.iterative_scan (0.8.0+): a filtered or minRelevance search may return fewer matches than its limit; upgrade pgvector for full recall`,
      );
    }
    return false;
  }

  private statements(index: string): PostgresStatements {
    return new PostgresStatements(qualified(this.schema, this.options.tables?.[index] ?? `${this.prefix}${index}`), this.columns);
  }

  private async readVectorSize(db: SqlQueryable, table: string): Promise<number | undefined> {
    const { rows } = await db.query<{ atttypmod: number }>(
      `SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND NOT a.attisdropped`,
      [table, this.columns.embedding],
    );
    return rows[0] ? Number(rows[0].atttypmod) : undefined;
  }
}

function toRecord(row: Row): MemoryRecord {
  const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as Record<string, unknown>) : (row.payload ?? {});
  const vector = typeof row.embedding === 'string' ? Float32Array.from(pgvector.fromSql(row.embedding) as number[]) : new Float32Array(0);
  return { id: row.id, vector, tags: decodeTags(row.tags), payload };
}

function textOf(payloadJson: string): string {
  const text = (JSON.parse(payloadJson) as { text?: unknown }).text;
  return typeof text === 'string' ? text : '';
}
