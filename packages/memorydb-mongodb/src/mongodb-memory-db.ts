import { InvalidInputError, MemoryDb } from '@km/core';
import { type CheckedRecord, KmRecordLayout, type StorageRecord, VectorStoreMemoryDbDriver } from '@km/core/connector';
import { checkCollectionPrefix, checkDatabaseName, MAX_NAMESPACE_BYTES } from './collection-names.js';
import type { MongoDbMemoryDbOptions } from './mongodb-config.js';
import { SEARCH_INDEX_NAME } from './search-index.js';
import type { MongoDbStorageLayout } from './vector-store/mongodb-storage-layout.js';
import { MongoDbVectorStoreDriver } from './vector-store/mongodb-vector-store-driver.js';

/**
 * How km's records sit in MongoDB since km 0.x: `_id` the record id, `embedding` an array of
 * doubles, `tags` `key:value` strings, `payload` a sub-document, no partition text field; the
 * search index `km_vector` declares the vector and `tags`; the score of a search is projected as
 * `score`; every collection under the prefix is an index.
 */
export const KM_MONGODB_LAYOUT: Readonly<MongoDbStorageLayout> = Object.freeze({
  searchIndexName: SEARCH_INDEX_NAME,
  keyFilterField: false,
  jsonProperties: ['payload'],
  scoreField: 'score',
  listEveryCollection: true,
  uncheckedDeletes: true,
});

/**
 * KM's record layout, writing a vector given as numbers as those numbers: km 0.x stored each as
 * the double it was given (`0.1`), where the layout would round it to float32 first
 * (`0.10000000149011612`). A `Float32Array` is written as it is, as before.
 */
class MongoDbRecordLayout extends KmRecordLayout {
  override toStorage(record: CheckedRecord): StorageRecord {
    const row = super.toStorage(record);
    if (!(record.vector instanceof Float32Array)) row[this.names.embedding] = record.vector;
    return row;
  }
}

/**
 * Memory records in MongoDB with Atlas Vector Search: core's `MemoryDb` over the package's one
 * driver, {@link MongoDbVectorStoreDriver}, through KM's record layout. One collection per index
 * (`{collectionPrefix}{index}` in `database`), a document per record (`_id` the km id,
 * `embedding` doubles, `tags` `key:value` strings, `payload` a sub-document), a `vectorSearch`
 * index `km_vector` (cosine, `tags` as a filter field); relevance is the cosine. Collections
 * written by earlier versions open unchanged.
 *
 * ```ts
 * const db = new MongoDbMemoryDb({ url: process.env.KM_MONGODB_URL, database: 'km' });
 * await db.createIndex('notes', 384); // waits until the search index is queryable
 * ```
 */
export class MongoDbMemoryDb extends MemoryDb<VectorStoreMemoryDbDriver> {
  constructor(options: MongoDbMemoryDbOptions) {
    super(mongoDbMemoryDbDriver(options), options);
  }

  /** The collection name of a normalised index. */
  collectionName(index: string): string {
    return this.driver.layout.collectionOf(index);
  }
}

/** The driver of {@link MongoDbMemoryDb}: its options as a typed driver with km 0.x's layout, and KM's record layout on its collections. */
function mongoDbMemoryDbDriver(options: MongoDbMemoryDbOptions): VectorStoreMemoryDbDriver {
  if (!options.client && !options.url) {
    throw new InvalidInputError('invalid_argument', 'give MongoDbMemoryDb a client or a url (connection string)', { connector: 'mongodb' });
  }
  const database = checkDatabaseName(options.database ?? 'km');
  const prefix = checkCollectionPrefix(options.collectionPrefix ?? 'km-');
  const layout = new MongoDbRecordLayout({
    prefix,
    storageNames: { id: '_id', embedding: 'embedding', tags: 'tags', payload: 'payload', content: false },
    collectionNames: {
      maxBytes: MAX_NAMESPACE_BYTES - Buffer.byteLength(database, 'utf8') - 1,
      what: `MongoDB collection names in database "${database}" (namespaces of ${MAX_NAMESPACE_BYTES} bytes)`,
    },
  });
  const { client, url, numCandidates, indexReadyTimeoutMs, batchSize } = options;
  const store = new MongoDbVectorStoreDriver(
    {
      ...(client && { client }),
      ...(url !== undefined && { url }),
      database,
      // The layout names whole collections (`km-notes`): the store adds no prefix of its own.
      collectionPrefix: '',
      ...(numCandidates !== undefined && { numCandidates }),
      ...(indexReadyTimeoutMs !== undefined && { indexReadyTimeoutMs }),
      ...(batchSize !== undefined && { batchSize }),
    },
    KM_MONGODB_LAYOUT,
    'MongoDbMemoryDb',
  );
  return new VectorStoreMemoryDbDriver(store, layout);
}
