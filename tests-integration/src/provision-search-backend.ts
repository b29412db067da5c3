import { containerRuntimeUnavailable } from './container-runtime.js';

/** A search server the suites can reach over HTTP, or why there is none. */
export type HttpBackend = { name: string; url: string; stop: () => Promise<void> } | { name: string; skip: string };

/** How to provision one HTTP server (Qdrant, Elasticsearch) for the conformance suites. */
export interface HttpBackendSpec {
  /** Shown in the suite name, e.g. `qdrant`. */
  name: string;
  /** The product's name in messages, e.g. `Qdrant`. */
  label: string;
  /** The variable holding an explicit URL, e.g. `KM_TEST_QDRANT_URL`. */
  envVar: string;
  /** The image Testcontainers starts when a container runtime answers. */
  image: string;
  port: number;
  environment?: Record<string, string>;
  /** A path answering 200 once the server is ready. */
  readyPath: string;
}

/**
 * One server for a suite, in DESIGN §9's order: the URL in `envVar`; a container when a runtime
 * answers; otherwise a skip naming both ways to run it.
 */
export async function provisionHttpBackend(spec: HttpBackendSpec): Promise<HttpBackend> {
  const url = process.env[spec.envVar];
  if (url) return { name: `${spec.name} (${spec.envVar})`, url, stop: async () => undefined };
  const noRuntime = await containerRuntimeUnavailable();
  const name = `${spec.name} (Testcontainers ${spec.image})`;
  if (noRuntime)
    return { name, skip: `set ${spec.envVar} to the URL of a running ${spec.label}, or run with Docker or Podman (${noRuntime})` };
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(spec.image)
    .withEnvironment(spec.environment ?? {})
    .withExposedPorts(spec.port)
    .withWaitStrategy(Wait.forHttp(spec.readyPath, spec.port).forStatusCode(200).withStartupTimeout(180_000))
    .start();
  return {
    name,
    url: `http://${container.getHost()}:${container.getMappedPort(spec.port)}`,
    stop: async () => {
      await container.stop();
    },
  };
}
