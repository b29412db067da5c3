import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { KernelMemoryBuilder } from '@km/core';
import type { ServiceConfigInput } from '../config.js';
import { startService, type RunningService } from '../server.js';

/** A service started by {@link startTestService}. */
export interface TestService extends RunningService {
  /** The log lines the service wrote, as JSON text, oldest first. */
  logs: string[];
  /** Closes the service and removes the data folder made for it. */
  dispose(): Promise<void>;
}

/**
 * A service for tests: on a free port, with word-hashing embeddings (fast, offline), queues
 * polled and retried every 20 ms, over a fresh temporary data folder unless
 * `overrides.dataDirectory` names one; its log lines are kept in `logs`, not printed.
 * `overrides` take precedence (`queue` field by field); `configure` customises the memory.
 *
 * ```ts
 * const service = await startTestService({ auth: { enabled: true, keys: [key] } });
 * try {
 *   await fetch(`${service.url}/health`);
 * } finally {
 *   await service.dispose();
 * }
 * ```
 */
export async function startTestService(
  overrides: ServiceConfigInput = {},
  configure?: (builder: KernelMemoryBuilder) => KernelMemoryBuilder,
): Promise<TestService> {
  const temporary = overrides.dataDirectory === undefined ? await mkdtemp(join(tmpdir(), 'km-service-')) : undefined;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const service = await startService({
    overrides: {
      port: 0,
      ...(temporary ? { dataDirectory: temporary } : {}),
      logLevel: 'info',
      embeddings: { provider: 'hashing' },
      ...overrides,
      queue: { pollIntervalMs: 20, retryDelayMs: 20, ...overrides.queue },
    },
    logDestination: sink,
    ...(configure ? { configure } : {}),
  });
  return Object.assign(service, {
    logs,
    async dispose() {
      await service.close();
      if (temporary) await rm(temporary, { recursive: true, force: true });
    },
  });
}
