import { replyFields, replyList } from '@km/memorydb-redis';
import { createClient } from 'redis';
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

/** Names the query engine registers as a module, in any of its editions and versions. */
const SEARCH_MODULES = new Set(['search', 'searchlight', 'ft']);

/**
 * Why a suite that needs a Redis *without* the query engine cannot run at `url`: nothing
 * answers, MODULE LIST fails, or the server has the query engine (e.g. a developer's `redis:8`
 * on 127.0.0.1:6379); undefined for a plain Redis.
 */
export async function whyNotPlainRedis(url: string): Promise<string | undefined> {
  const client = createClient({ url, RESP: 2, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    return `nothing answers at ${url} (${(error as Error).message})`;
  }
  try {
    const names = replyList(await client.sendCommand(['MODULE', 'LIST'])).map((m) => String(replyFields(m).get('name') ?? ''));
    const search = names.find((name) => SEARCH_MODULES.has(name.toLowerCase()));
    return search ? `${url} has the query engine (module ${search}), it is not a plain Redis` : undefined;
  } catch (error) {
    return `MODULE LIST failed at ${url}: ${(error as Error).message}`;
  } finally {
    await client.close();
  }
}
