import { MemoryDb } from '@km/core';
import type { QdrantMemoryDbOptions } from './qdrant-config.js';
import { QdrantMemoryDbDriver } from './qdrant-memory-db-driver.js';

/**
 * Memory records in Qdrant (see {@link QdrantMemoryDbDriver}). Core's `MemoryDb` owns the
 * rules; the driver translates.
 *
 * ```ts
 * const db = new QdrantMemoryDb({ url: 'http://127.0.0.1:6333', apiKey: process.env.QDRANT_API_KEY });
 * ```
 */
export class QdrantMemoryDb extends MemoryDb<QdrantMemoryDbDriver> {
  constructor(options: QdrantMemoryDbOptions) {
    super(new QdrantMemoryDbDriver(options), options);
  }

  /** The collection name of a normalised index. */
  collection(index: string): string {
    return this.driver.collection(index);
  }
}
