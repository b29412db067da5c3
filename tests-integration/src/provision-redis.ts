import { replyFields, replyList } from '@km/memorydb-redis';
import { createClient } from 'redis';
import { containerRuntimeUnavailable } from './container-runtime.js';

/** A Redis with the Query Engine the suites can reach, or why there is none. */
export type RedisBackend = { name: string; url: string; stop: () => Promise<void> } | { name: string; skip: string };

/** A fixed release, so runs are reproducible (Redis 8 has the query engine built in). */
const IMAGE = 'redis:8.2.4';

/**
 * One Redis with the Query Engine, in DESIGN §9's order: `KM_TEST_REDIS_URL`; a `redis:8.2.4`
 * container (the query engine is built in) when a runtime answers; otherwise a skip naming both.
 */
export async function provisionRedis(): Promise<RedisBackend> {
  const url = process.env.KM_TEST_REDIS_URL;
  if (url) return { name: 'redis (KM_TEST_REDIS_URL)', url, stop: async () => undefined };
  const name = `redis (Testcontainers ${IMAGE})`;
  const noRuntime = await containerRuntimeUnavailable();
  if (noRuntime) {
    return {
      name,
      skip: `set KM_TEST_REDIS_URL to a Redis 8 or Redis Stack (the Query Engine), or run with Docker or Podman (${noRuntime})`,
    };
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(IMAGE)
    .withExposedPorts(6379)
    .withWaitStrategy(
      Wait.forAll([Wait.forListeningPorts(), Wait.forLogMessage(/Ready to accept connections/)]).withStartupTimeout(120_000),
    )
    .start();
  return {
    name,
    url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
    stop: async () => {
      await container.stop();
    },
  };
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
