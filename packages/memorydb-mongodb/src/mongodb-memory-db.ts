import { MemoryDb } from '@km/core';
import type { MongoDbMemoryDbOptions } from './mongodb-config.js';
import { MongoDbMemoryDbDriver } from './mongodb-memory-db-driver.js';

/**
 * Memory records in MongoDB with Atlas Vector Search (see {@link MongoDbMemoryDbDriver}). Core's
 * `MemoryDb` owns the rules; the driver translates.
 *
 * ```ts
 * const db = new MongoDbMemoryDb({ url: process.env.KM_MONGODB_URL, database: 'km' });
 * await db.createIndex('notes', 384); // waits until the search index is queryable
 * ```
 */
export class MongoDbMemoryDb extends MemoryDb<MongoDbMemoryDbDriver> {
  constructor(options: MongoDbMemoryDbOptions) {
    super(new MongoDbMemoryDbDriver(options), options);
  }

  /** The collection name of a normalised index. */
  collectionName(index: string): string {
    return this.driver.collectionName(index);
  }
}
