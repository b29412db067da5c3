import { containerRuntimeUnavailable } from './container-runtime.js';

/** A Redis with the Query Engine the suites can reach, or why there is none. */
export type RedisBackend = { name: string; url: string; stop: () => Promise<void> } | { name: string; skip: string };

const IMAGE = 'redis:8';

/**
 * One Redis with the Query Engine, in DESIGN §9's order: `KM_TEST_REDIS_URL`; a `redis:8`
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
