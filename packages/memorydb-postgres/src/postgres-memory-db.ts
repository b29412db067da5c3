import { InvalidInputError, KmError, type MemoryRecord, MemoryDb, normalizeIndexName } from '@km/core';
import { KmRecordLayout } from '@km/core/connector';
import { MAX_IDENTIFIER_BYTES } from './identifiers.js';
import { PostgresMemoryDbDriver } from './postgres-memory-db-driver.js';
import { DEFAULT_COLUMNS, type PostgresMemoryDbOptions } from './postgres-config.js';
import { PostgresVectorStoreDriver } from './vector-store/postgres-vector-store-driver.js';
import { checkMemorySize } from './vector-store/table-indexes.js';

/**
 * Memory records in PostgreSQL with pgvector, on a `pg` pool or in process on PGlite: core's
 * `MemoryDb` over the package's one driver, {@link PostgresVectorStoreDriver}, through KM's
 * record layout. One table per index (`km-<index>`, or the table `tables` maps it to): `id`
 * text key, `embedding vector(n)` with an HNSW cosine index, `tags` (`key:value` text[], GIN),
 * `payload` jsonb, `content` (the partition text) and its generated, GIN-indexed tsvector
 * `content_tsv`; relevance = 1 − cosine distance, lexical relevance BM25-like in [0, 1).
 * Tables written by earlier versions open unchanged. `updateTags` replaces records' tags in
 * place (one UPDATE per batch; see {@link PostgresMemoryDbDriver}).
 *
 * ```ts
 * import pg from 'pg';
 * const db = new PostgresMemoryDb({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * // or, embedded:
 * const db2 = new PostgresMemoryDb({ pglite: await PGlite.create({ extensions: { vector } }) });
 * ```
 */
export class PostgresMemoryDb extends MemoryDb<PostgresMemoryDbDriver> {
  constructor(options: PostgresMemoryDbOptions) {
    super(postgresMemoryDbDriver(options), options);
  }

  /**
   * Gives each index's table (every km table when `indexes` is not given) the indexes km gives
   * a new one that it lacks: the tags GIN index, the full-text column with its GIN index, the
   * HNSW index (on the halfvec cast past 2000 dimensions). Tables from earlier versions, or
   * loaded with `bulkImport` and interrupted, get what they miss; `km upgrade` and the
   * service's `KM_POSTGRES_UPGRADE_TABLES` run this. Each table is upgraded under its advisory
   * lock, in one transaction; an index build blocks writes to its table while it runs.
   *
   * ```ts
   * for (const { index, created } of await db.upgradeTables()) console.log(index, created);
   * ```
   */
  async upgradeTables(indexes?: readonly string[], options: { maintenanceWorkMem?: string } = {}): Promise<TableUpgrade[]> {
    const names = indexes?.map((name) => normalizeIndexName(name)) ?? (await this.getIndexes());
    const upgrades: TableUpgrade[] = [];
    for (const index of names) {
      const size = await this.driver.vectorSize(index);
      if (size === undefined) throw new KmError('index_not_found', `index "${index}" does not exist`, { connector: 'postgres' });
      const created = await this.tables.upgradeCollection(
        this.driver.layout.collectionOf(index),
        this.driver.layout.definition(size),
        options,
      );
      upgrades.push({ index, table: this.driver.layout.collectionOf(index), created });
    }
    return upgrades;
  }

  /**
   * Loads many records into an index (created with the first record's vector size when
   * missing) the fast way: the HNSW index is dropped first (`deferVectorIndex`), the records go
   * in batches of `batchSize`, then the index is built again once, with enough
   * `maintenance_work_mem` for the table (or `maintenanceWorkMem`), and the table vacuumed and
   * analysed (its visibility map set, so counting a word's rows reads the index alone).
   * Searches meanwhile scan the table (slower; exact, but for vectors past 2000 dimensions,
   * ordered by their halfvec distance). The index is rebuilt even when the
   * load fails; if the process dies half way, `upgradeTables` builds it.
   *
   * ```ts
   * const { records, recordsPerSecond } = await db.bulkImport('docs', readRecords());
   * ```
   */
  async bulkImport(
    indexName: string,
    records: Iterable<MemoryRecord> | AsyncIterable<MemoryRecord>,
    options: PostgresBulkImportOptions = {},
  ): Promise<PostgresBulkImportReport> {
    // As every other call names it ('Docs' and 'docs' are one index).
    const index = normalizeIndexName(indexName);
    const batchSize = options.batchSize ?? 1000;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new InvalidInputError('invalid_argument', `batchSize must be a whole number of records (1 or more), got ${batchSize}`, {
        connector: 'postgres',
      });
    }
    if (options.maintenanceWorkMem !== undefined) checkMemorySize(options.maintenanceWorkMem, 'maintenanceWorkMem');
    const started = performance.now();
    let loaded = 0;
    let batch: MemoryRecord[] = [];
    let prepared: { table: string; size: number; dropped: string[] } | undefined;
    const prepare = async (first: MemoryRecord) => {
      await this.createIndex(index, first.vector.length);
      const size = (await this.driver.vectorSize(index)) ?? first.vector.length;
      const table = this.driver.layout.collectionOf(index);
      const defer = options.deferVectorIndex ?? true;
      const dropped = defer ? await this.tables.dropVectorIndexes(table, this.driver.layout.definition(size)) : [];
      return { table, size, dropped };
    };
    const flush = async () => {
      if (batch.length === 0) return;
      await this.upsertBatch(index, batch);
      loaded += batch.length;
      batch = [];
      options.onProgress?.(loaded);
    };
    let indexMs = 0;
    let failure: { error: unknown } | undefined;
    try {
      for await (const record of records) {
        prepared ??= await prepare(record);
        batch.push(record);
        if (batch.length >= batchSize) await flush();
      }
      await flush();
    } catch (error) {
      failure = { error };
    }
    if (prepared) {
      // Also after a failed load: the rows already in must be searchable through the index.
      const building = performance.now();
      try {
        // Rebuilds what it dropped (a table kept without HNSW, createVectorIndex: false, stays so).
        if (prepared.dropped.length > 0) {
          const definition = this.driver.layout.definition(prepared.size);
          await this.tables.upgradeCollection(prepared.table, definition, { maintenanceWorkMem: options.maintenanceWorkMem });
        }
        await this.tables.vacuumAnalyze(prepared.table);
      } catch (error) {
        // The load's own error says more; `upgradeTables` builds the index later.
        failure ??= { error };
      }
      indexMs = performance.now() - building;
    }
    if (failure) throw failure.error;
    const totalMs = performance.now() - started;
    return { records: loaded, loadMs: totalMs - indexMs, indexMs, recordsPerSecond: totalMs > 0 ? (loaded * 1000) / totalMs : 0 };
  }

  /** The typed driver under the memory DB. */
  private get tables(): PostgresVectorStoreDriver {
    return this.driver.store as PostgresVectorStoreDriver;
  }
}

/** What {@link PostgresMemoryDb.upgradeTables} did to one index's table. */
export interface TableUpgrade {
  index: string;
  table: string;
  /** What was created, e.g. `HNSW index on embedding`; empty when the table had everything. */
  created: string[];
}

/** Options of {@link PostgresMemoryDb.bulkImport}. */
export interface PostgresBulkImportOptions {
  /** Records per batch written (each batch lands whole; the connector's `batchSize` caps rows per INSERT statement). @default 1000 */
  batchSize?: number;
  /** Drop the HNSW index while loading and build it once at the end (several times faster). @default true */
  deferVectorIndex?: boolean;
  /** `maintenance_work_mem` of the index build, e.g. `'2GB'`. @default enough for the table's vectors, 64MB to 4GB */
  maintenanceWorkMem?: string;
  /** Called after each batch with the records loaded so far. */
  onProgress?: (loaded: number) => void;
}

/** What {@link PostgresMemoryDb.bulkImport} did. */
export interface PostgresBulkImportReport {
  records: number;
  /** Time spent inserting, in ms. */
  loadMs: number;
  /** Time spent building the indexes and analysing the table, in ms. */
  indexMs: number;
  /** Records per second, index build included. */
  recordsPerSecond: number;
}

/** The driver of {@link PostgresMemoryDb}: its options as a typed driver and KM's record layout on its tables. */
function postgresMemoryDbDriver(options: PostgresMemoryDbOptions): PostgresMemoryDbDriver {
  if (!options.pool && !options.connectionString && !options.pglite) {
    throw new InvalidInputError('invalid_argument', 'give PostgresMemoryDb a pool, a connectionString or a pglite instance', {
      connector: 'postgres',
    });
  }
  const { textSearch, ...storageNames } = { ...DEFAULT_COLUMNS, ...options.columns };
  const layout = new KmRecordLayout({
    prefix: options.tablePrefix ?? 'km-',
    ...(options.tables && { collections: options.tables }),
    storageNames,
    collectionNames: { maxBytes: MAX_IDENTIFIER_BYTES, what: 'PostgreSQL identifiers' },
    // The text is in `content` (which lexical search reads): the payload does not repeat it.
    textOnce: true,
  });
  const store = new PostgresVectorStoreDriver({
    ...options,
    unlistedTablePrefix: false,
    // As before: a memory DB call tries once; its callers (the pipeline's steps) own the retry budget.
    retry: { maxRetries: 0 },
    fullTextColumns: { [storageNames.content]: textSearch },
    columnTypes: { [storageNames.payload]: 'jsonb' },
  });
  return new PostgresMemoryDbDriver(store, layout);
}
