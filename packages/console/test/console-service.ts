import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
// The service is reached by path, not as a dependency: @km/service depends on @km/console (to
// serve it), so a dependency back would be a cycle in the workspace graph. Its dist is built
// before the tests run (`pnpm test` builds first).
import {
  createApp,
  createMemoryFromConfig,
  createServiceLogger,
  loadConfig,
  ServiceMetrics,
  toKmLogger,
  type ServiceConfig,
} from '../../service/dist/index.js';
import { registerConsoleRoutes } from '../../service/dist/routes/console.js';

type FastifyInstance = Awaited<ReturnType<typeof createApp>>;

/** A km service with the web console at `/ui`, running in this process. */
export interface ConsoleService {
  /** e.g. `http://127.0.0.1:40123` */
  url: string;
  config: ServiceConfig;
  app: FastifyInstance;
  /** Headers that carry the access key, when keys are on. */
  keyHeaders: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * Starts the real service as `startTestService` of @km/service does (word-hashing embeddings,
 * file queue polled every 20 ms, a fresh data folder, extractive answers), with the console
 * routes registered on its app before it listens. `accessKey` turns access keys on; `syncRoots`
 * are the folders sync jobs may read (KM_SYNC_ROOTS).
 */
export async function startConsoleService(options: { accessKey?: string; syncRoots?: string[] } = {}): Promise<ConsoleService> {
  const dataDirectory = await mkdtemp(join(tmpdir(), 'km-console-'));
  const config = loadConfig({
    env: {},
    overrides: {
      host: '127.0.0.1',
      port: 0,
      dataDirectory,
      logLevel: 'warn',
      embeddings: { provider: 'hashing' },
      queue: { pollIntervalMs: 20, retryDelayMs: 20 },
      ...(options.accessKey ? { auth: { enabled: true, keys: [options.accessKey] } } : {}),
      ...(options.syncRoots ? { syncRoots: options.syncRoots } : {}),
    },
  });
  const logs: string[] = [];
  const logger = createServiceLogger(
    config.logLevel,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  const metrics = new ServiceMetrics({ processMetrics: false });
  const memory = await createMemoryFromConfig(config, { logger: toKmLogger(logger), observer: metrics.observer });
  await memory.start({ runHandlers: true });
  const app = await createApp({ memory, config, logger, metrics });
  // Once app.ts registers the console itself, this adds nothing.
  if (!app.hasRoute({ method: 'GET', url: '/ui/*' })) registerConsoleRoutes(app, { authHeader: config.auth.header });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    app,
    keyHeaders: options.accessKey ? { [config.auth.header]: options.accessKey } : {},
    async dispose() {
      await app.close();
      await memory.stop({ drainTimeoutMs: 2000 });
      await rm(dataDirectory, { recursive: true, force: true });
    },
  };
}
