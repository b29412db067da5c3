import { createHash } from 'node:crypto';
import {
  IndexNotFoundError,
  InvalidInputError,
  KmError,
  checkVectorRecord,
  createConsoleLogger,
  decodeTags,
  encodeTags,
  indexNamesUnderPrefix,
  normalizeIndexName,
  rankResults,
  resolveQueryVector,
  searchLimit,
  type IMemoryDb,
  type ListOptions,
  type Logger,
  type MemoryDbCapabilities,
  type MemoryRecord,
  type SimilarityOptions,
} from '@km/core';
import pgvector from 'pgvector';
import { toSqlCondition } from './filters.js';
import { MAX_IDENTIFIER_BYTES, qualified, quoteIdent, secondaryIndexName } from './identifiers.js';
import type { PgvectorFeatures } from './pgvector-version.js';
import { DEFAULT_COLUMNS, type PostgresColumns, type PostgresMemoryDbOptions } from './postgres-config.js';
import { isUndefinedTable, translateError } from './postgres-errors.js';
import { setUpPgvector, withSetupLock } from './schema-setup.js';
import { clientFromPGlite, clientFromPool, type PgPoolLike, type SqlClient, type SqlQueryable } from './sql-client.js';

const CONNECTOR = 'postgres';
/** Idle time of a pooled socket before TCP keep-alive probes start. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;
/** Default `queryTimeoutMs`. */
const DEFAULT_QUERY_TIMEOUT_MS = 60_000;
/** pgvector's HNSW index takes vectors of at most 2000 dimensions. */
const HNSW_MAX_DIMENSIONS = 2000;

interface Row {
  id: string;
  tags: string[] | null;
  payload: Record<string, unknown> | string | null;
  embedding?: string | null;
  relevance?: number;
}

/**
 * Memory records in PostgreSQL with pgvector: one table per index (id, vector(n), `key:value`
 * text[] tags with a GIN index, jsonb payload, text content), an HNSW cosine index, filters as
 * parameterised SQL, relevance = 1 − cosine distance. Runs on a `pg` pool or in process on PGlite.
 *
 * ```ts
 * import pg from 'pg';
 * const db = new PostgresMemoryDb({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * // or, embedded:
 * const db2 = new PostgresMemoryDb({ pglite: await PGlite.create({ extensions: { vector } }) });
 * ```
 */
export class PostgresMemoryDb implements IMemoryDb {
  readonly name = CONNECTOR;
  readonly capabilities: MemoryDbCapabilities = { nativeBatch: true, negatedFilters: true, vectorSearch: true };
  /** Longest index name, in UTF-8 bytes of the normalised name: 63 (PostgreSQL identifiers) minus the table prefix. */
  readonly maxIndexNameLength: number;
  private readonly options: PostgresMemoryDbOptions;
  private readonly logger: Logger;
  /** pgvector's features, known once connected. */
  private features: PgvectorFeatures | undefined;
  private recallCaveatLogged = false;
  private readonly schema: string;
  private readonly prefix: string;
  private readonly columns: PostgresColumns;
  private connecting: Promise<SqlClient> | undefined;
  /** Tables seen to exist; reads of other tables check first instead of provoking an error. */
  private readonly knownTables = new Set<string>();

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
    for (const column of Object.values(this.columns)) quoteIdent(column);
    this.maxIndexNameLength = MAX_IDENTIFIER_BYTES - Buffer.byteLength(this.prefix, 'utf8');
    if (this.maxIndexNameLength < 1) {
      throw new InvalidInputError(
        'invalid_argument',
        `tablePrefix "${this.prefix}" leaves no room for index names in PostgreSQL's ${MAX_IDENTIFIER_BYTES}-byte identifiers`,
        {
          connector: CONNECTOR,
        },
      );
    }
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const name = normalizeIndexName(index);
    if (!Number.isInteger(vectorSize) || vectorSize <= 0 || vectorSize > 16000) {
      throw new InvalidInputError('invalid_argument', `vector size must be an integer in 1..16000, got ${vectorSize}`, {
        connector: CONNECTOR,
      });
    }
    const table = this.table(name);
    const c = this.columns;
    const client = await this.client();
    // Serialises concurrent creators of the same table (CREATE TABLE IF NOT EXISTS alone races);
    // a race lost anyway (23505, 42P07, 42710) is retried, and then finds the table.
    await this.guard(name, () =>
      withSetupLock(
        client,
        async (tx) => {
          const existing = await this.vectorSize(tx, table);
          if (existing !== undefined) {
            if (existing !== vectorSize) {
              throw new KmError('vector_size_mismatch', `index "${name}" has vector size ${existing}, got ${vectorSize}`, {
                connector: CONNECTOR,
              });
            }
            return;
          }
          await tx.query(
            `CREATE TABLE IF NOT EXISTS ${table} (
          ${quoteIdent(c.id)} TEXT PRIMARY KEY,
          ${quoteIdent(c.embedding)} vector(${vectorSize}) NOT NULL,
          ${quoteIdent(c.tags)} TEXT[] NOT NULL DEFAULT '{}',
          ${quoteIdent(c.payload)} JSONB NOT NULL DEFAULT '{}',
          ${quoteIdent(c.content)} TEXT NOT NULL DEFAULT '')`,
          );
          await tx.query(
            `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(table, 'tags'))} ON ${table} USING GIN (${quoteIdent(c.tags)})`,
          );
          if ((this.options.createVectorIndex ?? true) && vectorSize <= HNSW_MAX_DIMENSIONS) {
            const m = Math.floor(this.options.hnsw?.m ?? 16);
            const ef = Math.floor(this.options.hnsw?.efConstruction ?? 64);
            await tx.query(
              `CREATE INDEX IF NOT EXISTS ${quoteIdent(secondaryIndexName(table, 'embedding'))} ON ${table}
           USING hnsw (${quoteIdent(c.embedding)} vector_cosine_ops) WITH (m = ${m}, ef_construction = ${ef})`,
            );
          }
        },
        tableLockKey(table),
      ),
    );
    this.knownTables.add(table);
  }

  async getIndexes(): Promise<string[]> {
    const client = await this.client();
    const { rows } = await this.guard('', () =>
      client.query<{ relname: string }>(
        `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
        [this.schema],
      ),
    );
    const tables = new Set(rows.map((r) => r.relname));
    // Indexes mapped to tables of their own are found by their mapping, not by the prefix.
    const names = new Set(indexNamesUnderPrefix(tables, this.prefix).filter((name) => !this.options.tables?.[name]));
    for (const [index, table] of Object.entries(this.options.tables ?? {})) if (tables.has(table)) names.add(index);
    return [...names].sort();
  }

  async deleteIndex(index: string): Promise<void> {
    const name = normalizeIndexName(index);
    const table = this.table(name);
    this.knownTables.delete(table);
    const client = await this.client();
    await this.guard(name, () => client.query(`DROP TABLE IF EXISTS ${table}`));
  }

  async upsert(index: string, record: MemoryRecord): Promise<string> {
    return (await this.upsertBatch(index, [record]))[0]!;
  }

  async upsertBatch(index: string, records: MemoryRecord[]): Promise<string[]> {
    const name = normalizeIndexName(index);
    const checked = records.map((r) => checkVectorRecord(r, CONNECTOR));
    if (checked.length === 0) return [];
    // One row per id (the last wins), or ON CONFLICT would touch a row twice.
    const unique = [...new Map(checked.map((r) => [r.id, r])).values()];
    const table = this.table(name);
    const c = this.columns;
    const size = Math.max(1, this.options.batchSize ?? 500);
    const client = await this.client();
    if (!(await this.exists(table, name))) throw new IndexNotFoundError(name, { connector: CONNECTOR });
    const insert = (tx: SqlQueryable, batch: typeof unique) =>
      tx.query(
        `INSERT INTO ${table} (${[c.id, c.embedding, c.tags, c.payload, c.content].map(quoteIdent).join(', ')})
         SELECT r.id, r.embedding::vector, ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.payload, r.content
         FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[], $5::text[]) AS r(id, embedding, tags, payload, content)
         ON CONFLICT (${quoteIdent(c.id)}) DO UPDATE SET
           ${quoteIdent(c.embedding)} = EXCLUDED.${quoteIdent(c.embedding)},
           ${quoteIdent(c.tags)} = EXCLUDED.${quoteIdent(c.tags)},
           ${quoteIdent(c.payload)} = EXCLUDED.${quoteIdent(c.payload)},
           ${quoteIdent(c.content)} = EXCLUDED.${quoteIdent(c.content)}`,
        [
          batch.map((r) => r.id),
          batch.map((r) => pgvector.toSql(Array.from(r.vector))),
          batch.map((r) => JSON.stringify(encodeTags(r.tags))),
          batch.map((r) => r.payloadJson),
          batch.map((r) => textOf(r.payloadJson)),
        ],
      );
    try {
      // One statement is atomic on its own; several share a transaction so a batch lands whole.
      if (unique.length <= size) await insert(client, unique);
      else
        await client.transaction(async (tx) => {
          for (let i = 0; i < unique.length; i += size) await insert(tx, unique.slice(i, i + size));
        });
    } catch (error) {
      if (isUndefinedTable(error)) this.forget(table);
      throw translateError(error, name);
    }
    return checked.map((r) => r.id);
  }

  async *getSimilarList(
    index: string,
    query: string | Float32Array | number[],
    options: SimilarityOptions = {},
  ): AsyncIterable<[MemoryRecord, number]> {
    const name = normalizeIndexName(index);
    const vector = await resolveQueryVector(query, this.options.embeddingGenerator, CONNECTOR, options.signal);
    const limit = searchLimit(options.limit, this.options.maxSearchResults ?? 100);
    const table = this.table(name);
    const c = this.columns;
    const distance = `${quoteIdent(c.embedding)} <=> $1::vector`;
    const where = toSqlCondition(options.filters, quoteIdent(c.tags), 4);
    const efSearch = Math.min(1000, Math.max(limit, Math.floor(this.options.efSearch ?? 100)));
    const client = await this.client();
    if (!(await this.exists(table, name))) return;
    const iterativeScan = this.iterativeScan();
    let rows: Row[];
    try {
      rows = await client.transaction(async (tx) => {
        await tx.query(`SET LOCAL hnsw.ef_search = ${efSearch}`);
        // Filters and minRelevance are applied during the index scan, not after a fixed top-k (pgvector >= 0.8).
        if (iterativeScan) await tx.query(`SET LOCAL hnsw.iterative_scan = strict_order`);
        const result = await tx.query<Row>(
          `SELECT ${this.selectColumns(options.withEmbeddings)}, 1 - (${distance}) AS relevance
           FROM ${table}
           WHERE ${where.sql} AND 1 - (${distance}) >= $2
           ORDER BY ${distance}
           LIMIT $3`,
          [pgvector.toSql(Array.from(vector)), options.minRelevance ?? 0, limit, ...where.params],
        );
        return result.rows;
      });
    } catch (error) {
      if (isUndefinedTable(error)) return this.forget(table);
      throw translateError(error, name);
    }
    const results = rows.map((row): [MemoryRecord, number] => [toRecord(row), Number(row.relevance)]);
    for (const result of rankResults(results)) yield result;
  }

  async *getList(index: string, options: ListOptions = {}): AsyncIterable<MemoryRecord> {
    const name = normalizeIndexName(index);
    const where = toSqlCondition(options.filters, quoteIdent(this.columns.tags), 1);
    const limit = options.limit !== undefined && options.limit > 0 ? ` LIMIT ${Math.floor(options.limit)}` : '';
    const table = this.table(name);
    const client = await this.client();
    if (!(await this.exists(table, name))) return;
    let rows: Row[];
    try {
      ({ rows } = await client.query<Row>(
        `SELECT ${this.selectColumns(options.withEmbeddings)} FROM ${table}
         WHERE ${where.sql} ORDER BY ${quoteIdent(this.columns.id)} COLLATE "C"${limit}`,
        where.params,
      ));
    } catch (error) {
      if (isUndefinedTable(error)) return this.forget(table);
      throw translateError(error, name);
    }
    for (const row of rows) yield toRecord(row);
  }

  async delete(index: string, record: { id: string }): Promise<void> {
    const name = normalizeIndexName(index);
    const table = this.table(name);
    const client = await this.client();
    if (!(await this.exists(table, name))) return;
    try {
      await client.query(`DELETE FROM ${table} WHERE ${quoteIdent(this.columns.id)} = $1`, [record.id]);
    } catch (error) {
      if (isUndefinedTable(error)) return this.forget(table);
      throw translateError(error, name);
    }
  }

  /** Closes the pool the connector created from `connectionString` (a pool or PGlite given in is left open). */
  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    if (connecting) await (await connecting).close();
  }

  /** True when the table exists (remembered once seen, so the common case costs no query). */
  private async exists(table: string, index: string): Promise<boolean> {
    if (this.knownTables.has(table)) return true;
    const client = await this.client();
    const { rows } = await this.guard(index, () =>
      client.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [table]),
    );
    if (rows[0]?.found) this.knownTables.add(table);
    return Boolean(rows[0]?.found);
  }

  private forget(table: string): void {
    this.knownTables.delete(table);
  }

  /** Runs `fn`, turning driver errors into km errors (connection trouble becomes a transient KmError). */
  private async guard<T>(index: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw translateError(error, index);
    }
  }

  /** True when searches may use `hnsw.iterative_scan`; logs the recall caveat of older pgvector once. */
  private iterativeScan(): boolean {
    const features = this.features;
    if (!features || features.iterativeScan) return true;
    if (!this.recallCaveatLogged) {
      this.recallCaveatLogged = true;
      this.logger.warn(
        `[postgres] pgvector ${features.version} has no hnsw.iterative_scan (0.8.0+): a filtered or minRelevance search may return fewer matches than its limit; upgrade pgvector for full recall`,
      );
    }
    return false;
  }

  private table(index: string): string {
    const mapped = this.options.tables?.[index];
    if (mapped === undefined && Buffer.byteLength(index, 'utf8') > this.maxIndexNameLength) {
      throw new InvalidInputError(
        'invalid_index_name',
        `index name "${index}" is ${Buffer.byteLength(index, 'utf8')} bytes; PostgreSQL identifiers hold ${MAX_IDENTIFIER_BYTES} bytes and the table prefix "${this.prefix}" takes ${MAX_IDENTIFIER_BYTES - this.maxIndexNameLength}, so at most ${this.maxIndexNameLength}`,
        { connector: CONNECTOR },
      );
    }
    return qualified(this.schema, mapped ?? `${this.prefix}${index}`);
  }

  private selectColumns(withEmbeddings = false): string {
    const c = this.columns;
    const base = `${quoteIdent(c.id)} AS id, ${quoteIdent(c.tags)} AS tags, ${quoteIdent(c.payload)} AS payload`;
    return withEmbeddings ? `${base}, ${quoteIdent(c.embedding)}::text AS embedding` : base;
  }

  private async vectorSize(tx: SqlQueryable, table: string): Promise<number | undefined> {
    const { rows } = await tx.query<{ atttypmod: number }>(
      `SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND NOT a.attisdropped`,
      [table, this.columns.embedding],
    );
    return rows[0] ? Number(rows[0].atttypmod) : undefined;
  }

  private client(): Promise<SqlClient> {
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw translateError(error, '');
    });
    return this.connecting;
  }

  private async connect(): Promise<SqlClient> {
    let client: SqlClient;
    if (this.options.pglite) client = clientFromPGlite(this.options.pglite);
    else if (this.options.pool) {
      if (this.options.pool.listenerCount?.('error') === 0) this.options.pool.on?.('error', this.onIdleError);
      client = clientFromPool(this.options.pool, false);
    } else {
      const { default: pg } = await import('pg');
      const queryTimeout = this.options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
      const pool = new pg.Pool({
        connectionString: this.options.connectionString,
        max: this.options.maxConnections ?? 10,
        connectionTimeoutMillis: this.options.connectionTimeoutMs ?? 10_000,
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
      this.features = await setUpPgvector(client, this.options.createExtension ?? true);
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

/** Key of the advisory lock serialising creators of one table. */
function tableLockKey(table: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`km:table:${table}`).digest('hex').slice(0, 16)}`));
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
