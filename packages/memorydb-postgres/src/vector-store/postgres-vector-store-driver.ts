import { createConsoleLogger, InvalidInputError, type KeyValue, type Logger, type RecordDefinition } from '@km/core';
import { recordOrder, withConnectorRetries } from '@km/core/connector';
import pgvector from 'pgvector';
import type { DriverLexicalQuery, DriverRecordQuery, DriverVectorQuery, StorageRecord, VectorStoreDriver } from '@km/core/connector';
import { checkTextSearchConfig, DEFAULT_TEXT_SEARCH_CONFIG, FullTextColumns, MAX_LEXICAL_QUERY_CHARS } from '../full-text.js';
import { MAX_IDENTIFIER_BYTES, qualified } from '../identifiers.js';
import { PostgresConnection } from '../postgres-connection.js';
import { isUndefinedTable } from '../postgres-errors.js';
import { tableLockKey, withSetupLock } from '../schema-setup.js';
import type { SqlClient, SqlQueryable } from '../sql-client.js';
import { CollectionStatements, type HnswSettings, lexicalWhereStart } from './collection-statements.js';
import { planCandidates, RARE_WORD_COUNT_CAP } from './lexical-plan.js';
import { checkExistingTable, readColumns } from './existing-table.js';
import { filterToSql, hasStringContains } from './filter-sql.js';
import { checkHnswSettings, DEFAULT_VECTOR_STORE_RETRY, type PostgresVectorStoreOptions } from './postgres-vector-store-options.js';
import { checkMemorySize, hnswBuildMemory, indexedColumns, indexesOn } from './table-indexes.js';
import { recordParameters, rowToRecord, scoreAlias } from './storage-rows.js';
import { collectionNotFound, translateVectorStoreError } from './vector-store-errors.js';

const CONNECTOR = 'postgres';
/** PostgreSQL takes at most 65535 parameters in one statement. */
const MAX_PARAMETERS = 65_535;
/** Characters where `COLLATE "C"` (code points) and km's order (UTF-16 code units) can disagree. */
const ORDER_SENSITIVE = /[\uD800-\uFFFF]/;

/**
 * The PostgreSQL + pgvector driver of {@link PostgresVectorStore}: one table per collection,
 * named by the collection in the configured schema, one column per property (by storage name),
 * an HNSW index per vector with the operator class of its distance, filters as parameterised SQL.
 * Connection, pgvector setup and error classification are the memory DB's
 * (`PostgresConnection`, `translateError`); calls failing on connection trouble are retried
 * (`retry`), every call being idempotent.
 *
 * ```ts
 * const store = new VectorStore(new PostgresVectorStoreDriver({ pglite }));
 * ```
 */
export class PostgresVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly collectionNameLimit = { bytes: MAX_IDENTIFIER_BYTES, reason: `PostgreSQL identifiers hold ${MAX_IDENTIFIER_BYTES} bytes` };
  /** pgvector's `vector` holds up to 16000 dimensions (HNSW indexes up to 2000; larger vectors are scanned exactly). */
  readonly maxDimensions = 16_000;
  /** pgvector stores all-zero vectors; their cosine similarity reads as 0. */
  readonly zeroVectors = true;
  private readonly options: PostgresVectorStoreOptions;
  private readonly connection: PostgresConnection;
  private readonly logger: Logger;
  private readonly schema: string;
  private readonly retry: Required<NonNullable<PostgresVectorStoreOptions['retry']>>;
  private readonly fullText: FullTextColumns;
  /** Per table, its `varchar[]` columns (read once, when a filter first needs them). */
  private readonly varcharArrays = new Map<string, ReadonlySet<string>>();
  private recallCaveatLogged = false;
  private readonly hnsw: HnswSettings;

  constructor(options: PostgresVectorStoreOptions) {
    if (!options.pool && !options.connectionString && !options.pglite) {
      throw new InvalidInputError('invalid_argument', 'give PostgresVectorStore a pool, a connectionString or a pglite instance', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.schema = options.schema ?? 'public';
    qualified(this.schema, 'x'); // checks the schema name
    this.logger = options.logger ?? createConsoleLogger();
    this.connection = new PostgresConnection(options, this.logger);
    this.retry = { ...DEFAULT_VECTOR_STORE_RETRY, ...options.retry };
    const textSearchConfig = checkTextSearchConfig(options.textSearchConfig ?? DEFAULT_TEXT_SEARCH_CONFIG);
    this.fullText = new FullTextColumns(textSearchConfig, this.logger, options.upgradeTablesOnSearch === true);
    this.hnsw = checkHnswSettings(options);
  }

  /** Tables of the schema with at least one `vector` column, but those under `unlistedTablePrefix` (`km-`, the memory DB's). */
  async listCollections(): Promise<string[]> {
    const { rows } = await this.run('', 'list collections', (db) =>
      db.query<{ name: string }>(
        `SELECT DISTINCT c.relname AS name FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         JOIN pg_type t ON t.oid = a.atttypid
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND t.typname = 'vector'`,
        [this.schema],
      ),
    );
    const prefix = this.options.unlistedTablePrefix ?? 'km-';
    return rows.map((r) => r.name).filter((name) => prefix === false || !name.startsWith(prefix));
  }

  /** True when the schema has a table (or view) of that name. */
  async collectionExists(name: string): Promise<boolean> {
    const { rows } = await this.run(name, 'check collection', (db) =>
      db.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [qualified(this.schema, name)]),
    );
    return rows[0]?.found === true;
  }

  /**
   * Creates the table, its HNSW indexes, a GIN index per filterable array and the generated,
   * GIN-indexed `tsvector` column of each `fullText` property (see `fullTextColumns`), under an
   * advisory lock keyed by the table (so concurrent creators wait for each other). An existing
   * table is only checked: its mapped
   * columns must exist with compatible types and its key column be unique, else
   * `invalid_argument` names the first that does not fit; it is never altered.
   */
  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    await this.run(name, 'create collection', (_, client) => {
      // Built once connected: whether pgvector has halfvec is known then.
      const sql = this.statements(name, definition);
      return withSetupLock(
        client,
        async (tx) => {
          const columns = await readColumns(tx, sql.table);
          if (columns) return checkExistingTable(tx, sql.table, name, definition, columns);
          await tx.query(sql.createTable());
          for (const statement of sql.createArrayIndexes()) await tx.query(statement);
          for (const property of definition.data.filter((p) => p.fullText && p.type === 'string')) {
            await this.fullText.add(tx, sql.fullTextTable(property, this.fullTextColumn));
          }
          if (this.options.createVectorIndex ?? true) {
            for (const index of sql.createVectorIndexes(this.hnsw)) await tx.query(index.sql);
          }
        },
        tableLockKey('collection', sql.table),
      );
    });
  }

  /**
   * Gives an existing table every index km gives a new one that it lacks, whatever names it
   * has them under: a GIN index per filterable array, the full-text column (and its GIN index)
   * of each `fullText` property, the HNSW index of each vector (with the `hnsw` settings, built
   * with `maintenanceWorkMem`, by default enough for the table's rows). Runs under the table's
   * advisory lock, in one transaction; a build blocks writes to the table (not reads) while it
   * runs; the table is analysed after. Returns what it created (empty when nothing was missing);
   * `collection_not_found` when the table does not exist.
   */
  async upgradeCollection(name: string, definition: RecordDefinition, options: { maintenanceWorkMem?: string } = {}): Promise<string[]> {
    const memory = options.maintenanceWorkMem === undefined ? undefined : checkMemorySize(options.maintenanceWorkMem, 'maintenanceWorkMem');
    return this.run(name, 'upgrade collection', (_, pooled) => {
      const sql = this.statements(name, definition);
      // An index build takes minutes on a large table: no query timeout (it would roll it back).
      return longRunning(pooled, (client) =>
        withSetupLock(
          client,
          async (tx) => {
            if (!(await readColumns(tx, sql.table))) throw collectionNotFound(name);
            const created: string[] = [];
            const arrays = definition.data.filter((p) => p.filterable && p.type.endsWith('[]'));
            const haveGin = await indexedColumns(
              tx,
              sql.table,
              arrays.map((p) => [p.storageName, 'gin']),
            );
            for (const [i, statement] of sql.createArrayIndexes().entries()) {
              if (haveGin.has(arrays[i]!.storageName)) continue;
              await tx.query(statement);
              created.push(`GIN index on ${arrays[i]!.storageName}`);
            }
            for (const property of definition.data.filter((p) => p.fullText && p.type === 'string')) {
              const table = sql.fullTextTable(property, this.fullTextColumn);
              if (await this.fullText.has(tx, table)) continue;
              await this.fullText.add(tx, table);
              created.push(`full-text column ${table.column} (GIN-indexed)`);
            }
            const vectors = sql.createVectorIndexes(this.hnsw);
            const haveHnsw = await indexedColumns(
              tx,
              sql.table,
              vectors.map((v) => [v.column, 'hnsw']),
            );
            const missing = vectors.filter((v) => !haveHnsw.has(v.column));
            if (missing.length > 0) {
              const { rows } = await tx.query<{ n: number }>(
                'SELECT GREATEST(c.reltuples, 0)::float8 AS n FROM pg_class c WHERE c.oid = $1::regclass',
                [sql.table],
              );
              const widest = Math.max(...definition.vectors.map((v) => v.dimensions));
              await tx.query(
                `SET LOCAL maintenance_work_mem = '${memory ?? hnswBuildMemory(Number(rows[0]?.n ?? 0), widest, this.hnsw.m)}'`,
              );
              for (const index of missing) {
                await tx.query(index.sql);
                created.push(`HNSW index on ${index.column}`);
              }
            }
            // A new full-text column has no statistics yet: lexical search on a large table reads them.
            if (created.length > 0) await tx.query(`ANALYZE ${sql.table}`);
            return created;
          },
          tableLockKey('collection', sql.table),
        ),
      );
    });
  }

  /**
   * Drops the HNSW indexes of the table's vectors (whatever their names), for a bulk load:
   * rows then go in several times faster, and {@link upgradeCollection} builds the indexes once
   * at the end. Until then, searches scan the table exactly. Returns the indexes dropped.
   */
  async dropVectorIndexes(name: string, definition: RecordDefinition): Promise<string[]> {
    return this.run(name, 'drop vector indexes', (_, client) => {
      const table = qualified(this.schema, name);
      return withSetupLock(
        client,
        async (tx) => {
          const found = await indexesOn(
            tx,
            table,
            definition.vectors.map((v) => [v.storageName, 'hnsw']),
          );
          for (const index of found) await tx.query(`DROP INDEX IF EXISTS ${qualified(this.schema, index.name)}`);
          return found.map((i) => i.name);
        },
        tableLockKey('collection', table),
      );
    });
  }

  /**
   * `VACUUM (ANALYZE)` of the table, after a bulk load: its statistics (row counts, the word
   * frequencies large-table lexical searches read) and its visibility map (index scans that need
   * no column, such as counting a word's rows, then skip the table's pages).
   */
  async vacuumAnalyze(name: string): Promise<void> {
    const table = qualified(this.schema, name);
    await this.run(name, 'vacuum', (_, client) => longRunning(client, (long) => long.query(`VACUUM (ANALYZE) ${table}`)));
  }

  /** The dimensions of the `vector(n)` column `storageName` (its type modifier); undefined when the table or the column is missing. */
  async vectorDimensions(name: string, storageName: string): Promise<number | undefined> {
    const columns = await this.run(name, 'read vector size', (db) => readColumns(db, qualified(this.schema, name)));
    const column = columns?.get(storageName);
    return column?.type === 'vector' && column.typmod > 0 ? column.typmod : undefined;
  }

  /** Drops the table (`DROP TABLE IF EXISTS`), a table mapped by an existing-table definition included. */
  async deleteCollection(name: string): Promise<void> {
    const table = qualified(this.schema, name);
    await this.run(name, 'delete collection', (db) => db.query(`DROP TABLE IF EXISTS ${table}`));
    this.fullText.forget(table);
    this.varcharArrays.delete(table);
  }

  /**
   * `INSERT … ON CONFLICT (key) DO UPDATE`, at most `batchSize` records (and 65535 parameters)
   * per statement; several statements share a transaction, so a call lands whole.
   */
  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void> {
    if (records.length === 0) return;
    const sql = this.statements(name, definition);
    const size = Math.max(1, Math.min(Math.floor(this.options.batchSize ?? 500), Math.floor(MAX_PARAMETERS / sql.columnsPerRecord)));
    const insert = (db: SqlQueryable, batch: readonly StorageRecord[]) =>
      db.query(
        sql.upsert(batch.length),
        batch.flatMap((record) => recordParameters(definition, record)),
      );
    await this.run(name, 'upsert', async (db, client) => {
      if (records.length <= size) await insert(db, records);
      else
        await client.transaction(async (tx) => {
          for (let i = 0; i < records.length; i += size) await insert(tx, records.slice(i, i + size));
        });
    });
  }

  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    if (keys.length === 0) return [];
    const sql = this.statements(name, definition);
    const rows = await this.read(name, 'get', (db) => db.query<Record<string, unknown>>(sql.get(includeVectors), [[...keys]]));
    return rows.map((row) => rowToRecord(definition, row, includeVectors));
  }

  async delete(name: string, definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    if (keys.length === 0) return;
    const sql = this.statements(name, definition);
    await this.run(name, 'delete', (db) => db.query(sql.delete(), [[...keys]]));
  }

  /**
   * Replaces one `string[]` property (by storage name) of existing records in place, all in one
   * statement: the other columns stay as they are, keys without a record are skipped;
   * `collection_not_found` when the table is missing.
   */
  async replaceStringArrays(
    name: string,
    definition: RecordDefinition,
    storageName: string,
    updates: ReadonlyArray<{ key: KeyValue; values: readonly string[] }>,
  ): Promise<void> {
    if (updates.length === 0) return;
    const text = this.statements(name, definition).replaceStringArray(storageName);
    const rows = JSON.stringify(updates.map((u) => ({ k: String(u.key), v: u.values })));
    await this.run(name, 'update', (db) => db.query(text, [rows]));
  }

  /**
   * Nearest records that hold the vector, under the filter, ordered by pgvector's distance so
   * the HNSW index serves it; `hnsw.ef_search` is raised to the limit, and on pgvector 0.8+
   * `hnsw.iterative_scan = strict_order` keeps a filtered scan going until the limit is filled.
   */
  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    const table = qualified(this.schema, name);
    const where = filterToSql(query.filter, 3, await this.varcharArraysOf(name, table, query.filter));
    const efSearch = Math.min(1000, Math.max(query.limit, Math.floor(this.options.efSearch ?? 100)));
    const vector = pgvector.toSql(Array.from(query.vector));
    const rows = await this.read(
      name,
      'search',
      (_, client) =>
        client.transaction(async (tx) => {
          // Known once connected: this runs after the connection read pgvector's version.
          const text = this.statements(name, definition).search(query.vectorProperty, where.sql, query.includeVectors);
          await tx.query(`SET LOCAL hnsw.ef_search = ${efSearch}`);
          const scan = this.iterativeScan();
          if (scan !== undefined) await tx.query(`SET LOCAL hnsw.iterative_scan = ${scan}`);
          return tx.query<Record<string, unknown>>(text, [vector, query.limit, ...where.params]);
        }),
      query.signal,
    );
    // pgvector's cosine distance to an all-zero vector is NaN; km's cosine similarity is then 0.
    const score = (row: Record<string, unknown>) => {
      const value = Number(row[scoreAlias]);
      return Number.isNaN(value) && query.vectorProperty.distance === 'cosine' ? 0 : value;
    };
    return rows.map((row) => [rowToRecord(definition, row, query.includeVectors), score(row)]);
  }

  /**
   * Records whose full-text column (of `query.property`, see `fullTextColumns`) holds words of
   * the text, scored BM25-like in [0, 1) (see `CollectionStatements.lexicalRank`): one statement
   * reads the words' row counts (counted on a small table, from the column's statistics on a
   * large one, see `lexicalTerms`), a second ranks the matching rows, or on a large table only
   * candidates picked through the GIN index (see `planCandidates`). A table
   * without the column (from an earlier version) gets it here with `upgradeTablesOnSearch`,
   * else finds nothing, with one warning giving the ALTER TABLE to run.
   */
  async lexicalSearch(name: string, definition: RecordDefinition, query: DriverLexicalQuery): Promise<Array<[StorageRecord, number]>> {
    const sql = this.statements(name, definition);
    const table = sql.fullTextTable(query.property, this.fullTextColumn);
    const varcharArrays = await this.varcharArraysOf(name, sql.table, query.filter);
    const text = query.text.slice(0, MAX_LEXICAL_QUERY_CHARS).replace(/[\uD800-\uDBFF]$/, '');
    const rows = await this.read(
      name,
      'lexical search',
      async (_, client) => {
        const config = await this.fullText.configOf(client, table, (fn) =>
          withSetupLock(client, fn, tableLockKey('collection', sql.table)),
        );
        if (config === undefined) return { rows: [] };
        return this.fullText.run(sql.table, async () => {
          const { rows: found } = await client.query<{ literal: string; exact: boolean; n: number; df: number }>(
            sql.lexicalTerms(table.column),
            [config, text, sql.table, this.schema, name, table.column, RARE_WORD_COUNT_CAP],
          );
          const terms = found.map((t) => ({ literal: t.literal, df: Number(t.df) })).filter((t) => t.df > 0);
          if (terms.length === 0) return { rows: [] };
          const plan = planCandidates(
            { terms, rows: Number(found[0]!.n), exact: found[0]!.exact },
            query.limit,
            this.options.lexicalCandidates,
          );
          const tiers = plan?.tiers ?? [];
          const where = filterToSql(query.filter, lexicalWhereStart(tiers.length), varcharArrays);
          const statement = sql.lexicalRank(table.column, where.sql, query.includeVectors, tiers.length, plan?.lastTierIfShort);
          const head = [terms.map((t) => t.literal), terms.map((t) => t.df), Number(found[0]!.n), query.limit];
          return client.query<Record<string, unknown>>(statement, [...head, ...(plan ? [plan.budget, ...tiers] : []), ...where.params]);
        });
      },
      query.signal,
    );
    return rows.map((row) => [rowToRecord(definition, row, query.includeVectors), Number(row[scoreAlias])]);
  }

  /** Records under the filter in the given order (missing values last, ties by key). */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    const sql = this.statements(name, definition);
    const where = filterToSql(query.filter, 2, await this.varcharArraysOf(name, sql.table, query.filter));
    const text = sql.query(where.sql, query.orderBy, query.includeVectors);
    const read = async (limit: number | null) =>
      (await this.read(name, 'query', (db) => db.query<Record<string, unknown>>(text, [limit, ...where.params]), query.signal)).map((row) =>
        rowToRecord(definition, row, query.includeVectors),
      );
    const records = await read(query.limit);
    // `COLLATE "C"` orders text by code point, km by UTF-16 code units: they differ only where a
    // compared value holds a character from U+E000 up or outside the BMP. When none of the rows
    // read does, no other row comes before them in km's order either; else sort here.
    const compared = [definition.key.storageName, ...query.orderBy.map((o) => o.storageName)];
    if (!records.some((r) => compared.some((c) => typeof r[c] === 'string' && ORDER_SENSITIVE.test(r[c] as string)))) return records;
    return (await read(null)).sort(recordOrder(definition.key.storageName, query.orderBy)).slice(0, query.limit);
  }

  /** Closes the pool made from `connectionString` (a pool or PGlite given in is left open). */
  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Runs a read; a missing table reads as no rows. */
  private read(
    collection: string,
    what: string,
    fn: (db: SqlQueryable, client: SqlClient) => Promise<{ rows: Record<string, unknown>[] }>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>[]> {
    return this.run(
      collection,
      what,
      async (db, client) => {
        try {
          return (await fn(db, client)).rows;
        } catch (error) {
          if (isUndefinedTable(error)) return [];
          throw error;
        }
      },
      signal,
    );
  }

  /** Runs `fn` on the connection, retrying connection trouble; every error leaves as a KmError. */
  private run<T>(
    collection: string,
    what: string,
    fn: (db: SqlQueryable, client: SqlClient) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    return withConnectorRetries(
      async () => {
        const client = await this.connection.client();
        return fn(client, client);
      },
      {
        connector: CONNECTOR,
        what: collection ? `${what} (collection "${collection}")` : what,
        retry: this.retry,
        toKmError: (error) => translateVectorStoreError(error, collection),
        signal,
        logger: this.logger,
      },
    );
  }

  /** The `varchar[]` columns of a table, read once when a filter has `contains` on a `string[]` (`@>` needs the column's own type). */
  private async varcharArraysOf(name: string, table: string, filter: DriverVectorQuery['filter']): Promise<ReadonlySet<string>> {
    if (!hasStringContains(filter)) return new Set();
    const known = this.varcharArrays.get(table);
    if (known) return known;
    const columns = await this.run(name, 'read columns', (db) => readColumns(db, table));
    if (!columns) return new Set();
    const found = new Set([...columns.values()].filter((c) => c.type === '_varchar').map((c) => c.name));
    this.varcharArrays.set(table, found);
    return found;
  }

  /** The statements of a collection's table. */
  private statements(name: string, definition: RecordDefinition): CollectionStatements {
    return new CollectionStatements(this.schema, name, definition, this.options.columnTypes, this.connection.features?.halfvec ?? true);
  }

  /** The tsvector column of a `fullText` property. */
  private readonly fullTextColumn = (storageName: string): string => this.options.fullTextColumns?.[storageName] ?? `${storageName}_tsv`;

  /** The `hnsw.iterative_scan` of searches, or undefined where pgvector has none (logging the recall caveat of older pgvector once). */
  private iterativeScan(): string | undefined {
    const features = this.connection.features;
    if (!features || features.iterativeScan) return this.options.iterativeScan ?? 'strict_order';
    if (!this.recallCaveatLogged) {
      this.recallCaveatLogged = true;
      this.logger.warn(
        `[postgres] pgvector ${features.version} has no hnsw.iterative_scan (0.8.0+): a filtered vector-store search may return fewer matches than its top; upgrade pgvector for full recall`,
      );
    }
    return undefined;
  }
}

/** Runs `fn` on a client without query timeout when the connection has one (see `SqlClient.withoutQueryTimeout`). */
function longRunning<T>(client: SqlClient, fn: (client: SqlClient) => Promise<T>): Promise<T> {
  return client.withoutQueryTimeout ? client.withoutQueryTimeout(fn) : fn(client);
}
