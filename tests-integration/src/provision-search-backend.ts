import type { WaitStrategy } from 'testcontainers';
import { containerRuntimeUnavailable } from './container-runtime.js';

/** A backend the suites can reach, or why there is none. */
export type Backend = { name: string; url: string; stop: () => Promise<void> } | { name: string; skip: string };

/** How to provision one backend (Qdrant, Elasticsearch, Redis, MongoDB) for the suites. */
export interface BackendSpec {
  /** Shown in the suite name, e.g. `qdrant`. */
  name: string;
  /** The variable holding an explicit URL, e.g. `KM_TEST_QDRANT_URL`. */
  envVar: string;
  /** What that URL must point at, for the skip line, e.g. `a running Qdrant`. */
  wanted: string;
  /** The image Testcontainers starts when a container runtime answers (a fixed tag). */
  image: string;
  port: number;
  environment?: Record<string, string>;
  /** When the started container is ready. */
  wait: (wait: typeof import('testcontainers').Wait) => WaitStrategy;
  /** The URL of the started container. @default `http://{host}:{port}` */
  url?: (host: string, port: number) => string;
}

/**
 * One server for a suite, in DESIGN §9's order: the URL in `envVar`; a container when a runtime
 * answers; otherwise a skip naming both ways to run it.
 */
export async function provisionBackend(spec: BackendSpec): Promise<Backend> {
  const url = process.env[spec.envVar];
  if (url) return { name: `${spec.name} (${spec.envVar})`, url, stop: async () => undefined };
  const noRuntime = await containerRuntimeUnavailable();
  const name = `${spec.name} (Testcontainers ${spec.image})`;
  if (noRuntime) return { name, skip: `set ${spec.envVar} to ${spec.wanted}, or run with Docker or Podman (${noRuntime})` };
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(spec.image)
    .withEnvironment(spec.environment ?? {})
    .withExposedPorts(spec.port)
    .withWaitStrategy(spec.wait(Wait))
    .start();
  const toUrl = spec.url ?? ((host: string, port: number) => `http://${host}:${port}`);
  return {
    name,
    url: toUrl(container.getHost(), container.getMappedPort(spec.port)),
    stop: async () => {
      await container.stop();
    },
  };
}

/** How to provision one HTTP server (Qdrant, Elasticsearch): ready once `readyPath` answers 200. */
export interface HttpBackendSpec extends Omit<BackendSpec, 'wanted' | 'wait' | 'url'> {
  /** The product's name in messages, e.g. `Qdrant`. */
  label: string;
  /** A path answering 200 once the server is ready. */
  readyPath: string;
}

/** {@link provisionBackend} for an HTTP server. */
export function provisionHttpBackend(spec: HttpBackendSpec): Promise<Backend> {
  const { label, readyPath, ...rest } = spec;
  return provisionBackend({
    ...rest,
    wanted: `the URL of a running ${label}`,
    wait: (Wait) => Wait.forHttp(readyPath, spec.port).forStatusCode(200).withStartupTimeout(180_000),
  });
}
