import { type MemoryDbFactory, settingsAsOptions } from '@km/core/connector';

/**
 * How the service and `km worker` build a {@link RedisMemoryDb} from configuration
 * (`KM_MEMORY_DB=redis`). The connector and its client load only when it is chosen.
 */
export const redisMemoryDbFactory: MemoryDbFactory = {
  type: 'redis',
  description: 'Redis 8 or Redis Stack (the Query Engine), shared by every worker (redis)',
  settings: [
    {
      key: 'redisUrl',
      env: ['KM_REDIS_URL'],
      type: 'url',
      schemes: ['redis:', 'rediss:'],
      required: true,
      flag: '--redis-url',
      description: 'Redis with the Query Engine, e.g. redis://127.0.0.1:6379 (rediss:// for TLS; user and password in the URL)',
    },
    { key: 'redisVectorAlgorithm', env: ['KM_REDIS_VECTOR_ALGORITHM'], description: 'vector index of new indexes: hnsw (default) or flat' },
    { key: 'prefix', env: ['KM_MEMORY_DB_PREFIX'], description: "prepended to every search index and key km creates (default 'km-')" },
  ],
  async create(settings, context) {
    const { checkVectorAlgorithm } = await import('./redis-config.js');
    const { RedisMemoryDb } = await import('./redis-memory-db.js');
    const options = settingsAsOptions(settings, { url: 'redisUrl', indexPrefix: 'prefix', algorithm: 'redisVectorAlgorithm' });
    const { algorithm, ...rest } = options;
    const vectorAlgorithm =
      algorithm === undefined ? undefined : checkVectorAlgorithm(algorithm, 'redisVectorAlgorithm (KM_REDIS_VECTOR_ALGORITHM)');
    return new RedisMemoryDb({ ...rest, ...(vectorAlgorithm ? { vectorAlgorithm } : {}), logger: context.logger });
  },
};
