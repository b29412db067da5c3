import { InvalidInputError, isKmError, KmError, type KeyValue, type RecordDefinition } from '@km/core';
import {
  collectionNamesUnderPrefix,
  compareRecordIds,
  type DriverRecordQuery,
  type DriverVectorQuery,
  type StorageRecord,
  type VectorStoreDriver,
} from '@km/core/connector';
import { type AnyBulkWriteOperation, type Collection, type Db, type Document, type Filter, MongoClient } from 'mongodb';
import { checkCollectionPrefix, checkDatabaseName, collectionNameLimit } from '../collection-names.js';
import { codeOf, isAlreadyExists, translateMongoError, VectorSearchUnavailableError } from '../mongodb-errors.js';
import { listRecords } from '../record-listing.js';
import { MAX_CANDIDATES, MAX_DIMENSIONS, numCandidatesFor, type SearchIndexInfo } from '../search-index.js';
import { waitUntilQueryable } from '../search-index-readiness.js';
import { checkFieldNames, fromVectorDocument, KEY_FIELD, projectionOf, toDoubles, toVectorDocument } from './mongodb-vector-documents.js';
import { MATCH_NOTHING, toMongoVectorFilter } from './mongodb-vector-filter.js';
import { checkVectorIndex, declaredDimensions, vectorIndexDescription } from './mongodb-vector-index.js';
import { recordQueryPipeline } from './mongodb-vector-query.js';
import { scoreFromVectorSearchScore } from './mongodb-vector-scores.js';
import type { MongoDbVectorStoreOptions } from './mongodb-vector-store-options.js';
import { type MongoDbStorageLayout, type ResolvedStorageLayout, resolveStorageLayout } from './mongodb-storage-layout.js';

const CONNECTOR = 'mongodb';
const NAMESPACE_EXISTS = 48;
const NAMESPACE_NOT_FOUND = 26;
/** The field a search adds for the score by default (no storage name may start with `$`, and none is this). */
export const SCORE_FIELD = '__km_score';

/** The documents with these keys. */
const byKeys = (keys: readonly KeyValue[]): Filter<Document> => ({ [KEY_FIELD]: { $in: [...keys] } }) as unknown as Filter<Document>;

/**
 * The MongoDB driver of {@link MongoDbVectorStore}, on Atlas Vector Search: one collection per
 * collection (`{prefix}{name}` in one database), a document per record (`_id` the key, data and
 * vectors by storage name, vectors as arrays of doubles), and a `vectorSearch` index
 * `kmvs_vector` (see `vectorIndexDescription`). A search is a `$vectorSearch` aggregation with the
 * filter (`toMongoVectorFilter`) as its pre-filter; Atlas's normalised score is turned back into
 * the convention of the searched property (`scoreFromVectorSearchScore`). Reads by key are
 * `find`s (immediately consistent); searches follow writes once `mongot` has caught up
 * (usually within a second). The vector size of a collection is read back from its search index
 * (`vectorDimensions`), which is how `MongoDbMemoryDb` (core's `MemoryDb` over this driver)
 * opens its indexes; its layout (`MongoDbStorageLayout`) keeps km 0.x's documents as they are.
 */
export class MongoDbVectorStoreDriver implements VectorStoreDriver {
  readonly name = CONNECTOR;
  readonly keyTypes = ['string', 'integer', 'uuid'] as const;
  readonly distances = ['cosine', 'dot', 'euclidean'] as const;
  readonly maxDimensions = MAX_DIMENSIONS;
  readonly maxBatchSize: number;
  readonly collectionNameLimit: { bytes: number; reason: string };
  readonly collectionPrefix: string;
  /** A zero vector has no cosine: Atlas Vector Search cannot index it for `cosine`. */
  readonly zeroVectors = false;
  private readonly options: MongoDbVectorStoreOptions;
  private readonly layout: ResolvedStorageLayout;
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  private readonly db: Db;

  /**
   * @param layout how documents and search indexes are laid out (internal: `MongoDbMemoryDb`
   * passes km 0.x's; see {@link MongoDbStorageLayout}).
   */
  constructor(options: MongoDbVectorStoreOptions, layout?: MongoDbStorageLayout, owner = 'MongoDbVectorStore') {
    if (!options.client && !options.url) {
      throw new InvalidInputError('invalid_argument', `give ${owner} a client or a url (connection string)`, {
        connector: CONNECTOR,
      });
    }
    this.options = options;
    this.layout = resolveStorageLayout(layout);
    const database = checkDatabaseName(options.database ?? 'km');
    this.collectionPrefix = checkCollectionPrefix(options.collectionPrefix ?? 'kmvs-');
    this.collectionNameLimit = collectionNameLimit(database, this.collectionPrefix);
    this.maxBatchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
    this.ownsClient = !options.client;
    this.client = options.client ?? new MongoClient(options.url!, { appName: 'km', driverInfo: { name: 'km-memorydb-mongodb' } });
    // Operations report their own failures; the client's 'error' event must not crash the process.
    if (this.ownsClient) this.client.on('error', () => undefined);
    this.db = this.client.db(database);
  }

  async listCollections(): Promise<string[]> {
    const collections = await this.call('', () => this.db.listCollections({}, { nameOnly: true }).toArray());
    const names = collections.map((c) => c.name);
    if (this.layout.listEveryCollection) {
      return names.filter((n) => n.startsWith(this.collectionPrefix)).map((n) => n.slice(this.collectionPrefix.length));
    }
    return collectionNamesUnderPrefix(names, this.collectionPrefix);
  }

  /**
   * The dimensions of the vector field at `storageName` declared by the collection's search
   * index; undefined when the collection, its index or the field is missing, or while the index
   * is not queryable yet (building or failed: it is not there yet for writes and searches).
   */
  async vectorDimensions(name: string, storageName: string): Promise<number | undefined> {
    if (!(await this.collectionExists(name))) return undefined;
    let info: SearchIndexInfo | undefined;
    try {
      info = await this.searchIndex(name);
    } catch (error) {
      if (isKmError(error, 'collection_not_found')) return undefined; // dropped since it was listed
      throw error;
    }
    if (info?.queryable !== true) return undefined;
    return declaredDimensions(info, storageName);
  }

  async collectionExists(name: string): Promise<boolean> {
    const found = await this.call(name, () => this.db.listCollections({ name: this.collectionName(name) }, { nameOnly: true }).toArray());
    return found.length > 0;
  }

  /**
   * Creates the collection and its search index, then waits until the index is queryable
   * (`indexReadyTimeoutMs`). Either may exist (made earlier, by a concurrent caller, or by you):
   * an existing index must have the definition's fields (`checkVectorIndex`). On a server without
   * vector search, a collection this call created is dropped again.
   */
  async createCollection(name: string, definition: RecordDefinition): Promise<void> {
    checkFieldNames(definition);
    let created = false;
    try {
      await this.db.createCollection(this.collectionName(name));
      created = true;
    } catch (error) {
      if (codeOf(error) !== NAMESPACE_EXISTS) throw this.translate(error, name);
    }
    try {
      const listed = await this.searchIndex(name);
      if (listed) {
        checkVectorIndex(this.collectionName(name), definition, listed);
      } else {
        try {
          await this.collection(name).createSearchIndex(
            vectorIndexDescription(definition, { name: this.layout.searchIndexName, keyFilterField: this.layout.keyFilterField }),
          );
        } catch (error) {
          if (!isAlreadyExists(error)) throw this.translate(error, name);
        }
      }
      const ready = await waitUntilQueryable(() => this.searchIndex(name), {
        collection: this.collectionName(name),
        timeoutMs: this.options.indexReadyTimeoutMs ?? 120_000,
      });
      checkVectorIndex(this.collectionName(name), definition, ready);
    } catch (error) {
      if (created && error instanceof VectorSearchUnavailableError) {
        await this.collection(name)
          .drop()
          .catch(() => undefined); // best effort: the unavailability is what the caller needs to hear
      }
      throw error;
    }
  }

  /** Drops the collection, and with it its search index; a missing one is no error. */
  async deleteCollection(name: string): Promise<void> {
    try {
      await this.collection(name).drop();
    } catch (error) {
      if (codeOf(error) !== NAMESPACE_NOT_FOUND) throw this.translate(error, name);
    }
  }

  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]): Promise<void> {
    checkFieldNames(definition);
    await this.mustExist(name);
    const operations: Array<AnyBulkWriteOperation<Document>> = records.map((record) => {
      const document = toVectorDocument(definition, record, this.layout.jsonProperties);
      return { replaceOne: { filter: { [KEY_FIELD]: document[KEY_FIELD] }, replacement: document, upsert: true } };
    });
    await this.call(name, () => this.collection(name).bulkWrite(operations, { ordered: false }));
  }

  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean): Promise<StorageRecord[]> {
    checkFieldNames(definition);
    if (keys.length === 0) return [];
    const documents = await this.call(name, () =>
      this.collection(name)
        .find(byKeys(keys), { projection: projectionOf(definition, includeVectors) })
        .toArray(),
    );
    return documents.map((d) => fromVectorDocument(definition, d, includeVectors, this.layout.jsonProperties));
  }

  async delete(name: string, _definition: RecordDefinition, keys: readonly KeyValue[]): Promise<void> {
    // deleteMany cannot say whether the collection exists: typed collections ask (their contract is collection_not_found).
    if (!this.layout.uncheckedDeletes) await this.mustExist(name);
    if (keys.length === 0) return;
    await this.call(name, () => this.collection(name).deleteMany(byKeys(keys)));
  }

  async search(name: string, definition: RecordDefinition, query: DriverVectorQuery): Promise<Array<[StorageRecord, number]>> {
    checkFieldNames(definition);
    const filter = toMongoVectorFilter(query.filter);
    const limit = Math.min(MAX_CANDIDATES, query.limit);
    if (filter === MATCH_NOTHING || limit <= 0) return [];
    const vector = query.vectorProperty;
    const pipeline: Document[] = [
      {
        $vectorSearch: {
          index: this.layout.searchIndexName,
          path: vector.storageName,
          queryVector: toDoubles(query.vector),
          numCandidates: numCandidatesFor(limit, this.options.numCandidates),
          limit,
          ...(Object.keys(filter).length > 0 ? { filter } : {}),
        },
      },
      { $project: { ...projectionOf(definition, query.includeVectors), [this.layout.scoreField]: { $meta: 'vectorSearchScore' } } },
    ];
    let documents: Document[];
    try {
      documents = await this.collection(name)
        .aggregate(pipeline, query.signal ? { signal: query.signal } : {})
        .toArray();
    } catch (error) {
      if (query.signal?.aborted && error === query.signal.reason) throw error;
      // No collection: no records (a search on a missing namespace answers nothing or 26).
      if (codeOf(error) === NAMESPACE_NOT_FOUND) return [];
      throw this.translate(error, name);
    }
    return documents.map((d): [StorageRecord, number] => [
      fromVectorDocument(definition, d, query.includeVectors, this.layout.jsonProperties),
      scoreFromVectorSearchScore(vector.distance, Number(d[this.layout.scoreField] ?? 0)),
    ]);
  }

  /**
   * Records matching the filter in the given order, missing values last (see
   * `recordQueryPipeline`); a `find`-like aggregation, immediately consistent. Strings sort by
   * code point (MongoDB's binary order). Ordered by the key alone (ascending) it is a `find`
   * sorted by `_id`, and string keys come in km's order (UTF-16 code units, see `listRecords`),
   * which is how `MongoDbMemoryDb` lists records.
   */
  async query(name: string, definition: RecordDefinition, query: DriverRecordQuery): Promise<StorageRecord[]> {
    checkFieldNames(definition);
    const filter = toMongoVectorFilter(query.filter);
    if (filter === MATCH_NOTHING || query.limit <= 0) return [];
    const [first, ...others] = query.orderBy;
    if (others.length === 0 && (first === undefined || (first.storageName === definition.key.storageName && !first.descending))) {
      return this.queryByKey(name, definition, filter, query);
    }
    const pipeline = recordQueryPipeline(
      filter,
      query.orderBy,
      query.limit,
      projectionOf(definition, query.includeVectors),
      definition.key.storageName,
    );
    let documents: Document[];
    try {
      documents = await this.collection(name)
        .aggregate(pipeline, query.signal ? { signal: query.signal } : {})
        .toArray();
    } catch (error) {
      if (query.signal?.aborted && error === query.signal.reason) throw error;
      if (codeOf(error) === NAMESPACE_NOT_FOUND) return [];
      throw this.translate(error, name);
    }
    return documents.map((d) => fromVectorDocument(definition, d, query.includeVectors, this.layout.jsonProperties));
  }

  /** A query in key order: `find`s sorted by `_id` (see `listRecords`), string keys in km's order. */
  private async queryByKey(
    name: string,
    definition: RecordDefinition,
    filter: Document,
    query: DriverRecordQuery,
  ): Promise<StorageRecord[]> {
    const limit = query.limit >= Number.MAX_SAFE_INTEGER ? undefined : query.limit;
    const signal = query.signal ? { signal: query.signal } : {};
    const find = async (where: object, wanted: number | undefined, fields: object): Promise<Array<Document & { _id: unknown }>> => {
      try {
        return await this.collection(name)
          .find(where, { projection: fields, sort: { _id: 1 }, ...(wanted !== undefined ? { limit: wanted } : {}), ...signal })
          .toArray();
      } catch (error) {
        if (query.signal?.aborted && error === query.signal.reason) throw error;
        if (codeOf(error) === NAMESPACE_NOT_FOUND) return [];
        throw this.translate(error, name);
      }
    };
    const documents = await listRecords(filter, limit, projectionOf(definition, query.includeVectors), find);
    if (definition.key.type === 'string') documents.sort((a, b) => compareRecordIds(String(a._id), String(b._id)));
    return documents.map((d) => fromVectorDocument(definition, d, query.includeVectors, this.layout.jsonProperties));
  }

  /** Closes the client the connector built (a client given in is left open). */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** The MongoDB collection of a collection. */
  collectionName(name: string): string {
    return `${this.collectionPrefix}${name}`;
  }

  private collection(name: string): Collection<Document> {
    return this.db.collection<Document>(this.collectionName(name));
  }

  /** The collection's vector search index, as `$listSearchIndexes` reports it; undefined when there is none. */
  private async searchIndex(name: string): Promise<SearchIndexInfo | undefined> {
    const found = await this.call(name, () => this.collection(name).listSearchIndexes(this.layout.searchIndexName).toArray());
    return found[0] as SearchIndexInfo | undefined;
  }

  private async mustExist(name: string): Promise<void> {
    if (!(await this.collectionExists(name))) {
      throw new KmError(
        'collection_not_found',
        `collection "${name}" does not exist (no MongoDB collection "${this.collectionName(name)}")`,
        {
          connector: CONNECTOR,
        },
      );
    }
  }

  /** Calls the driver, turning its errors into km errors. */
  private async call<T>(name: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.translate(error, name);
    }
  }

  /** Driver and server errors → km errors (`translateMongoError`); a missing namespace is `collection_not_found`. */
  private translate(error: unknown, name: string): unknown {
    if (codeOf(error) === NAMESPACE_NOT_FOUND) {
      return new KmError(
        'collection_not_found',
        `collection "${name}" does not exist (no MongoDB collection "${this.collectionName(name)}")`,
        {
          connector: CONNECTOR,
          cause: error,
        },
      );
    }
    return translateMongoError(error, name);
  }
}
