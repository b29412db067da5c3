import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { KmError } from '../../errors/km-error.js';
import { KeyedMutex } from '../../util/keyed-mutex.js';
import type { Logger } from '../../util/logger.js';
import type { KeyValue, RecordDefinition } from '../record-definition-types.js';
import type { DriverRecordQuery, DriverVectorQuery, StorageRecord, VectorStoreDriver } from '../vector-store-driver.js';
import { checkCollectionName, collectionFolder, fileExists, listCollectionFolders } from './collection-folder.js';
import { queryRows, searchRows } from './row-search.js';
import { StoredCollection } from './stored-collection.js';
import { DEFINITION_FILE, readDefinition, toStoredDefinition, writeDefinition } from './stored-definition.js';
import { recordFromRow, rowFromRecord } from './stored-row.js';

const CONNECTOR = 'simple-vector-store';

/** Options of {@link SimpleVectorStoreDriver}. */
export interface SimpleVectorStoreDriverOptions {
  /** Folder holding one subfolder per collection; in memory only (lost with the process) when missing. */
  directory?: string | undefined;
  /** fsync every write, so an acknowledged write survives a power cut. @default true */
  durable?: boolean | undefined;
  /** Where a torn log tail cut on load is reported. @default a process warning */
  logger?: Logger | undefined;
}

/**
 * The driver of the built-in typed vector store: records in memory, exact search (every
 * record holding the searched vector is scored), the reference filter evaluator, every key
 * type, distance, data type and filter operator. With a directory each collection is a folder
 * holding `definition.json` (written atomically) and `records.log`, an append-only checksummed
 * log of upserts and deletes (vectors as float32, dates as ISO strings), loaded on first use and
 * compacted on open when it holds more than twice as many entries as live records. A torn tail
 * left by a crash is cut and reported; the entries before it load. One driver at a time may open
 * a directory: another process or instance would not see its writes.
 *
 * ```ts
 * const store = new VectorStore(new SimpleVectorStoreDriver({ directory: './km-data/collections' }));
 * ```
 */
export class SimpleVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  // dataTypes and filterOperators: every one (the defaults).
  private readonly directory: string | undefined;
  private readonly durable: boolean;
  private readonly logger: Logger | undefined;
  /** Collections in memory (all of them without a directory; those loaded so far with one). */
  private readonly collections = new Map<string, StoredCollection>();
  /** Serialises loads and writes per collection. */
  private readonly mutex = new KeyedMutex();

  constructor(options: SimpleVectorStoreDriverOptions = {}) {
    this.directory = options.directory === undefined ? undefined : resolve(options.directory);
    this.durable = options.durable ?? true;
    this.logger = options.logger;
  }

  async listCollections(): Promise<string[]> {
    if (!this.directory) return [...this.collections.keys()].sort();
    return listCollectionFolders(this.directory, DEFINITION_FILE);
  }

  async collectionExists(name: string): Promise<boolean> {
    const folder = this.folderOf(name);
    if (this.collections.has(name)) return true;
    return folder !== undefined && (await fileExists(join(folder, DEFINITION_FILE)));
  }

  /** Creates the collection, or checks that the existing one has this definition (`invalid_argument` naming the difference). */
  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    const folder = this.folderOf(name);
    await this.mutex.run(name, async () => {
      const existing = await this.load(name);
      if (existing) return existing.verify(definition);
      const stored = toStoredDefinition(definition);
      if (folder) {
        // A folder without a definition is no collection (a creation or deletion cut short): start it afresh.
        await rm(folder, { recursive: true, force: true });
        await mkdir(folder, { recursive: true });
        await writeDefinition(folder, stored);
      }
      const created = folder
        ? await StoredCollection.load(name, folder, stored, this.loadOptions())
        : new StoredCollection(name, stored, undefined, CONNECTOR, this.durable);
      created.verify(definition);
      this.collections.set(name, created);
    });
  }

  async deleteCollection(name: string): Promise<void> {
    const folder = this.folderOf(name);
    await this.mutex.run(name, async () => {
      const collection = this.collections.get(name);
      this.collections.delete(name);
      await collection?.close();
      if (!folder) return;
      // The definition goes first: from then on the folder is no collection, even if a crash stops the rest.
      await rm(join(folder, DEFINITION_FILE), { force: true });
      await rm(folder, { recursive: true, force: true });
    });
  }

  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void> {
    await this.mutex.run(name, async () => {
      const collection = await this.writable(name, definition);
      await collection.upsert(records.map((record) => rowFromRecord(collection.definition, record, CONNECTOR)));
    });
  }

  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    const collection = await this.readable(name, definition);
    if (!collection) return [];
    const records: StorageRecord[] = [];
    for (const key of new Set(keys)) {
      const row = collection.rows.get(key);
      if (row) records.push(recordFromRow(row, includeVectors));
    }
    return records;
  }

  async delete(name: string, definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    await this.mutex.run(name, async () => {
      const collection = await this.writable(name, definition);
      await collection.delete(keys);
    });
  }

  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    query.signal?.throwIfAborted();
    const collection = await this.readable(name, definition);
    if (!collection) return [];
    return searchRows(collection.rows.values(), query).map(([row, score]) => [recordFromRow(row, query.includeVectors), score]);
  }

  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    query.signal?.throwIfAborted();
    const collection = await this.readable(name, definition);
    if (!collection) return [];
    return queryRows(collection.rows.values(), query).map((row) => recordFromRow(row, query.includeVectors));
  }

  /** The dimensions of the vector stored under `storageName`, from the collection's definition; undefined when either is missing. */
  async vectorDimensions(name: string, storageName: string): Promise<number | undefined> {
    this.folderOf(name);
    const collection = this.collections.get(name) ?? (await this.mutex.run(name, () => this.load(name)));
    return collection?.definition.vectors.find((v) => v.storageName === storageName)?.dimensions;
  }

  /** Closes the collections' log files (waiting for writes in progress); the driver must not be used afterwards. */
  async close(): Promise<void> {
    for (const [name, collection] of this.collections) await this.mutex.run(name, () => collection.close());
  }

  /** The collection's folder (its name checked again: never joined unchecked); undefined without a directory. */
  private folderOf(name: string): string | undefined {
    if (!this.directory) {
      checkCollectionName(name, CONNECTOR); // the same rule in memory
      return undefined;
    }
    return collectionFolder(this.directory, name, CONNECTOR);
  }

  /** The collection for a read, loaded on first use; undefined when missing. */
  private async readable(name: string, definition: RecordDefinition): Promise<StoredCollection | undefined> {
    this.folderOf(name);
    const collection = this.collections.get(name) ?? (await this.mutex.run(name, () => this.load(name)));
    collection?.verify(definition);
    return collection;
  }

  /** The collection for a write (the caller holds its lock); `collection_not_found` when missing. */
  private async writable(name: string, definition: RecordDefinition): Promise<StoredCollection> {
    this.folderOf(name);
    const collection = await this.load(name);
    if (!collection) throw new KmError('collection_not_found', `collection "${name}" does not exist`, { connector: CONNECTOR });
    collection.verify(definition);
    return collection;
  }

  /** The collection in memory, else read from its folder (the caller holds its lock); undefined when missing. */
  private async load(name: string): Promise<StoredCollection | undefined> {
    const loaded = this.collections.get(name);
    if (loaded || !this.directory) return loaded;
    const folder = collectionFolder(this.directory, name, CONNECTOR);
    const definition = await readDefinition(folder, CONNECTOR);
    if (!definition) return undefined;
    const collection = await StoredCollection.load(name, folder, definition, this.loadOptions());
    this.collections.set(name, collection);
    return collection;
  }

  private loadOptions(): { durable: boolean; connector: string; logger: Logger | undefined } {
    return { durable: this.durable, connector: CONNECTOR, logger: this.logger };
  }
}
