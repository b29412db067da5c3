import { MemoryDb } from '@km/core';
import { KmRecordLayout, VectorStoreMemoryDbDriver } from '@km/core/connector';
import { type RedisMemoryDbOptions, resolveRedisOptions } from './redis-config.js';
import { RedisVectorStoreDriver } from './vector-store/redis-vector-store-driver.js';

/** Redis keys hold up to 512 MB: index names meet no limit of Redis's (core's 128 characters stand). */
const REDIS_KEY_BYTES = 512 * 1024 * 1024;

/**
 * Memory records in Redis with the Query Engine (Redis 8, or Redis Stack / RediSearch 2.4+):
 * core's `MemoryDb` over the package's one driver, {@link RedisVectorStoreDriver}, through KM's
 * record layout. One search index `{indexPrefix}{index}` per km index over the hashes
 * `{indexPrefix}{index}:{id}` with the fields `id` (the id as is), `tags` (a case-sensitive TAG
 * field holding each `key:value` tag in a reversible encoding), `payload` (the JSON text) and
 * `embedding` (a FLOAT32 COSINE vector, HNSW or FLAT); the vector size is also kept under the
 * key `{indexPrefix}{index}` for servers whose FT.INFO does not report it. Similarity search is
 * a KNN query with the filter as a pre-filter; relevance is `1 - distance`. Indexes and records
 * written by earlier versions open unchanged.
 *
 * ```ts
 * const db = new RedisMemoryDb({ url: 'redis://127.0.0.1:6379' });
 * await db.createIndex('notes', 384);
 * ```
 */
export class RedisMemoryDb extends MemoryDb<VectorStoreMemoryDbDriver> {
  constructor(options: RedisMemoryDbOptions) {
    super(redisMemoryDbDriver(options), options);
  }

  /** The search index name of a normalised index. */
  indexName(index: string): string {
    return this.driver.layout.collectionOf(index);
  }
}

/** The driver of {@link RedisMemoryDb}: its options as a typed driver and KM's record layout on its hashes. */
function redisMemoryDbDriver(options: RedisMemoryDbOptions): VectorStoreMemoryDbDriver {
  const { indexPrefix } = resolveRedisOptions(options); // checks them, with RedisMemoryDb's messages
  const layout = new KmRecordLayout({
    prefix: indexPrefix,
    // km 0.x's fields; no `content` (Redis has no lexical search here).
    storageNames: { id: 'id', embedding: 'embedding', tags: 'tags', payload: 'payload', content: false },
    collectionNames: { maxBytes: REDIS_KEY_BYTES, what: 'Redis keys' },
  });
  // The layout puts the prefix in the collection name; the typed driver adds none.
  const store = new RedisVectorStoreDriver(
    { ...options, collectionPrefix: '' },
    { plainKey: true, plainText: [layout.names.payload], vectorSizeKey: true, listEveryIndex: true, uncheckedDeletes: true },
  );
  return new VectorStoreMemoryDbDriver(store, layout);
}
