export { RedisMemoryDb } from './redis-memory-db.js';
export { RedisConnection } from './redis-connection.js';
export {
  checkVectorAlgorithm,
  resolveRedisOptions,
  type KmRedisClient,
  type RedisMemoryDbOptions,
  type RedisVectorAlgorithm,
  type ResolvedRedisOptions,
} from './redis-config.js';
export { decodeIndexedTag, encodeIndexedTag, TAG_SEPARATOR } from './tag-field.js';
export { fromFloat32Blob, toFloat32Blob } from './vector-blob.js';
export { checkQueryEngine, moduleVersionText, searchModuleOf, MIN_SEARCH_VERSION } from './query-engine-check.js';
export { translateRedisError, isMissingIndex, isConnectionError } from './redis-errors.js';
export { replyFields, replyList, replyNumber } from './reply-fields.js';
export { redisMemoryDbFactory } from './redis-factory.js';
export { RedisVectorStore } from './vector-store/redis-vector-store.js';
export { RedisVectorStoreDriver } from './vector-store/redis-vector-store-driver.js';
export type { RedisVectorStoreOptions } from './vector-store/redis-vector-store-options.js';
export { escapeQueryValue, MATCH_ALL, MATCH_NOTHING, toRedisVectorQuery } from './vector-store/redis-vector-filter.js';
export { attributeNames, createCollectionCommand, SCORE_ALIAS } from './vector-store/redis-vector-schema.js';
export { decodeTagValue, encodeTagValue, type FieldValue, fromVectorHash, toVectorHash } from './vector-store/redis-vector-hash.js';
export { DISTANCE_METRICS, scoreFromRedisDistance } from './vector-store/redis-vector-scores.js';
