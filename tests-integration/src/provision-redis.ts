import { type Backend, provisionBackend } from './provision-search-backend.js';

/** A fixed release, so runs are reproducible (Redis 8 has the query engine built in). */
const IMAGE = 'redis:8.2.4';

/**
 * One Redis with the Query Engine: `KM_TEST_REDIS_URL`; a `redis:8.2.4` container (the query
 * engine is built in) when a runtime answers; otherwise a skip naming both.
 */
export function provisionRedis(): Promise<Backend> {
  return provisionBackend({
    name: 'redis',
    envVar: 'KM_TEST_REDIS_URL',
    wanted: 'a Redis 8 or Redis Stack (the Query Engine)',
    image: IMAGE,
    port: 6379,
    wait: (Wait) => Wait.forAll([Wait.forListeningPorts(), Wait.forLogMessage(/Ready to accept connections/)]).withStartupTimeout(120_000),
    url: (host, port) => `redis://${host}:${port}`,
  });
}
