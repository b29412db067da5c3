import type { MemoryDbOptions } from '@km/core';
import type { MongoClient } from 'mongodb';

/** How to reach MongoDB and how to lay out collections. */
export interface MongoDbMemoryDbOptions extends MemoryDbOptions {
  /** A client you built and own (closed by you); otherwise one is built from `url`. */
  client?: MongoClient;
  /**
   * Connection string of a deployment with vector search: Atlas (`mongodb+srv://…`), the
   * `mongodb/mongodb-atlas-local` image, or MongoDB 8.2+ Community with `mongot`.
   */
  url?: string;
  /** The database holding km's collections. @default 'km' */
  database?: string;
  /** Prepended to every collection name, so km's collections can share a database. @default 'km-' */
  collectionPrefix?: string;
  /**
   * Candidates the HNSW search considers (`numCandidates`); at least the limit, at most 10000.
   * @default max(100, 10 × limit)
   */
  numCandidates?: number;
  /** How long `createIndex` waits for the new search index to become queryable, in ms. @default 120000 */
  indexReadyTimeoutMs?: number;
  /** Records per `bulkWrite`; a larger batch is sent as several. @default 500 */
  batchSize?: number;
}
