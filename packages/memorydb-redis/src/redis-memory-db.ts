import { MemoryDb } from '@km/core';
import type { RedisMemoryDbOptions } from './redis-config.js';
import { RedisMemoryDbDriver } from './redis-memory-db-driver.js';

/**
 * Memory records in Redis with the Query Engine (Redis 8, or Redis Stack / RediSearch 2.4+),
 * see {@link RedisMemoryDbDriver}. Core's `MemoryDb` owns the rules; the driver translates.
 *
 * ```ts
 * const db = new RedisMemoryDb({ url: 'redis://127.0.0.1:6379' });
 * await db.createIndex('notes', 384);
 * ```
 */
export class RedisMemoryDb extends MemoryDb<RedisMemoryDbDriver> {
  constructor(options: RedisMemoryDbOptions) {
    super(new RedisMemoryDbDriver(options), options);
  }

  /** The search index name of a normalised index. */
  indexName(index: string): string {
    return this.driver.indexName(index);
  }
}
