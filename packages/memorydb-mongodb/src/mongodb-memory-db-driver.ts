import { IndexNotFoundError, InvalidInputError, KmError, type MemoryRecord } from '@km/core';
import { compareRecordIds, indexNamesUnderPrefix } from '@km/core/connector';
import type { CheckedRecord, DriverList, DriverSearch, MemoryDbDriver } from '@km/core/connector';
import { type AnyBulkWriteOperation, type Collection, type Db, MongoClient } from 'mongodb';
import { checkCollectionPrefix, checkDatabaseName, collectionNameLimit } from './collection-names.js';
import type { MongoDbMemoryDbOptions } from './mongodb-config.js';
import { Fields, toDocument, toRecord, type MongoDbRecord } from './mongodb-documents.js';
import { codeOf, isAlreadyExists, translateMongoError, VectorSearchUnavailableError } from './mongodb-errors.js';
import { toMongoDbFilter, type MongoDbFilter } from './mongodb-filters.js';
import { listRecords } from './record-listing.js';
import { relevanceFromScore } from './relevance.js';
import {
  declaredVectorSize,
  MAX_DIMENSIONS,
  SEARCH_INDEX_NAME,
  searchIndexDescription,
  vectorSearchPipeline,
  type SearchIndexInfo,
} from './search-index.js';
import { waitUntilQueryable } from './search-index-readiness.js';

const CONNECTOR = 'mongodb';
const NAMESPACE_EXISTS = 48;

/**
 * The MongoDB driver of {@link MongoDbMemoryDb}, on Atlas Vector Search: one collection per
 * index (`{prefix}{index}` in one database), a document per record (`_id` the km id,
 * `embedding` an array of doubles, `tags` `key:value` strings, `payload`), and a `vectorSearch`
 * search index `km_vector` (cosine, `tags` as a filter field). Similarity search is a
 * `$vectorSearch` aggregation with the filter as its pre-filter; the score `(1 + cos) / 2` is
 * converted back to the cosine. Listing is a `find` with the same filter. Search indexes follow
 * writes asynchronously: a write is visible to `find` at once, to search once `mongot` has
 * caught up (usually within a second).
 */
export class MongoDbMemoryDbDriver implements MemoryDbDriver {
  readonly name = CONNECTOR;
  /** A zero vector has no cosine: Atlas Vector Search cannot index it for `cosine`. */
  readonly capabilities = { zeroVectors: false };
  readonly indexNameLimit: { bytes: number; reason: string };
  readonly maxVectorSize = MAX_DIMENSIONS;
  readonly maxBatchSize: number;
  private readonly options: MongoDbMemoryDbOptions;
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  private readonly db: Db;
  private readonly prefix: string;

  constructor(options: MongoDbMemoryDbOptions) {
    if (!options.client && !options.url) {
      throw new InvalidInputError('invalid_argument', 'give MongoDbMemoryDb a client or a url (connection string)', {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    const database = checkDatabaseName(options.database ?? 'km');
    this.prefix = checkCollectionPrefix(options.collectionPrefix ?? 'km-');
    this.indexNameLimit = collectionNameLimit(database, this.prefix);
    this.maxBatchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
    this.ownsClient = !options.client;
    this.client = options.client ?? new MongoClient(options.url!, { appName: 'km', driverInfo: { name: 'km-memorydb-mongodb' } });
    // Operations report their own failures; the client's 'error' event must not crash the process.
    if (this.ownsClient) this.client.on('error', () => undefined);
    this.db = this.client.db(database);
  }

  async vectorSize(index: string): Promise<number | undefined> {
    const name = this.collectionName(index);
    const found = await this.call(index, () => this.db.listCollections({ name }, { nameOnly: true }).toArray());
    if (found.length === 0) return undefined;
    let info: SearchIndexInfo | undefined;
    try {
      info = await this.searchIndex(index);
    } catch (error) {
      if (error instanceof IndexNotFoundError) return undefined; // dropped since it was listed
      throw error;
    }
    // An index still building (or failed) is not there yet for km: writes wait for createIndex.
    if (info?.queryable !== true) return undefined;
    const size = declaredVectorSize(info);
    if (size === undefined) {
      throw new KmError('invalid_argument', `search index "${SEARCH_INDEX_NAME}" on "${name}" has no "embedding" vector field`, {
        connector: CONNECTOR,
      });
    }
    return size;
  }

  /**
   * Creates the collection and its search index, then waits until the index is queryable
   * (`indexReadyTimeoutMs`). Either may exist already (a concurrent creator, or an earlier
   * attempt that stopped half way): the existing index must declare the same vector size. On a
   * server without vector search, a collection this call created is dropped again.
   */
  async createIndex(index: string, vectorSize: number): Promise<void> {
    let created = false;
    try {
      await this.db.createCollection(this.collectionName(index));
      created = true;
    } catch (error) {
      if (codeOf(error) !== NAMESPACE_EXISTS) throw translateMongoError(error, index);
    }
    try {
      await this.createSearchIndex(index, vectorSize);
    } catch (error) {
      if (created && error instanceof VectorSearchUnavailableError) {
        await this.collection(index)
          .drop()
          .catch(() => undefined); // best effort: the unavailability is what the caller needs to hear
      }
      throw error;
    }
  }

  /**
   * Creates km's search index unless it is listed, and waits until it is queryable. A creator that
   * loses a race hears "already exists" and waits for the winner's index like for its own.
   */
  private async createSearchIndex(index: string, vectorSize: number): Promise<void> {
    const listed = await this.searchIndex(index);
    if (listed) {
      this.checkDeclaredSize(index, listed, vectorSize);
    } else {
      try {
        await this.collection(index).createSearchIndex(searchIndexDescription(vectorSize));
      } catch (error) {
        if (!isAlreadyExists(error)) throw translateMongoError(error, index);
      }
    }
    const ready = await waitUntilQueryable(() => this.searchIndex(index), {
      collection: this.collectionName(index),
      timeoutMs: this.options.indexReadyTimeoutMs ?? 120_000,
    });
    this.checkDeclaredSize(index, ready, vectorSize);
  }

  private checkDeclaredSize(index: string, info: SearchIndexInfo, vectorSize: number): void {
    const declared = declaredVectorSize(info);
    if (declared !== vectorSize) {
      throw new KmError('vector_size_mismatch', `index "${index}" has vector size ${declared ?? 'none'}, got ${vectorSize}`, {
        connector: CONNECTOR,
      });
    }
  }

  async listIndexes(): Promise<string[]> {
    const collections = await this.call('', () => this.db.listCollections({}, { nameOnly: true }).toArray());
    return indexNamesUnderPrefix(
      collections.map((c) => c.name),
      this.prefix,
    );
  }

  /** Drops the collection, and with it its search index. */
  async deleteIndex(index: string): Promise<void> {
    await this.call(index, () => this.collection(index).drop());
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    const operations: Array<AnyBulkWriteOperation<MongoDbRecord>> = records.map((record) => ({
      replaceOne: { filter: { _id: record.id }, replacement: toDocument(record), upsert: true },
    }));
    await this.call(index, () => this.collection(index).bulkWrite(operations, { ordered: false }));
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const pipeline = vectorSearchPipeline({
      vector: query.vector!,
      filter: toMongoDbFilter(query.filters),
      limit: query.limit,
      numCandidates: this.options.numCandidates,
      withEmbeddings: query.withEmbeddings,
    });
    const docs = await this.call(
      index,
      () =>
        this.collection(index)
          .aggregate<MongoDbRecord>(pipeline, query.signal ? { signal: query.signal } : {})
          .toArray(),
      query.signal,
    );
    return docs.map((doc): [MemoryRecord, number] => [toRecord(doc), relevanceFromScore(Number(doc.score ?? 0))]);
  }

  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const filter: MongoDbFilter | Record<string, never> = toMongoDbFilter(query.filters) ?? {};
    const projection = query.withEmbeddings ? {} : { [Fields.embedding]: 0 };
    const signal = query.signal ? { signal: query.signal } : {};
    const find = (where: object, limit: number | undefined, fields: object) =>
      this.call(
        index,
        () =>
          this.collection(index)
            .find(where, { projection: fields, sort: { _id: 1 }, ...(limit !== undefined ? { limit } : {}), ...signal })
            .toArray(),
        query.signal,
      );
    const docs = await listRecords(filter, query.limit, projection, find);
    yield* docs.map(toRecord).sort((a, b) => compareRecordIds(a.id, b.id));
  }

  async delete(index: string, id: string): Promise<void> {
    await this.call(index, () => this.collection(index).deleteOne({ _id: id }));
  }

  /** Closes the client the connector built (a client given in is left open). */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** The collection name of a normalised index. */
  collectionName(index: string): string {
    return `${this.prefix}${index}`;
  }

  private collection(index: string): Collection<MongoDbRecord> {
    return this.db.collection<MongoDbRecord>(this.collectionName(index));
  }

  /** km's search index on the collection, as `$listSearchIndexes` reports it; undefined when there is none. */
  private async searchIndex(index: string): Promise<SearchIndexInfo | undefined> {
    const found = await this.call(index, () => this.collection(index).listSearchIndexes(SEARCH_INDEX_NAME).toArray());
    return found[0] as SearchIndexInfo | undefined;
  }

  /**
   * Calls the driver, turning its errors into km errors (a missing namespace is IndexNotFoundError);
   * an aborted `signal`'s reason, which the driver throws, is rethrown as it is.
   */
  private async call<T>(index: string, request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      throw translateMongoError(error, index);
    }
  }
}
