import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { sharedServerOptions } from './vitest.shared.js';

/**
 * Packages that run as vitest projects of their own (their `vitest.config.ts`): the large ones,
 * and those whose tests need a process to themselves (Chromium, worker threads and process
 * handlers, long cases).
 */
const OWN_PROJECT = new Set(['core', 'service', 'memorydb-postgres', 'cli', 'console', 'ai-local', 'conformance']);

/**
 * Every other package's tests run as one project, `packages`: a worker then starts once for all
 * of them and loads km's built packages once, instead of once per package (each package's own
 * `vitest.config.ts` still runs it alone: `pnpm --filter @km/<name> test`).
 */
const GROUPED = readdirSync(new URL('./packages', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !OWN_PROJECT.has(entry.name))
  .map((entry) => entry.name)
  .sort();

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          server: sharedServerOptions,
          name: 'packages',
          isolate: false,
          include: GROUPED.map((name) => `packages/${name}/test/**/*.test.ts`),
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      ...[...OWN_PROJECT].map((name) => `packages/${name}`),
      'tests-integration',
    ],
    // Vitest's default is one worker less than the cores: a single worker on a 2-core machine,
    // where most test files spend their time waiting on servers, sockets and child processes.
    // Two at least (three are slower on two cores); each project runs its files in a shared
    // module graph (`isolate: false`), so a worker imports km's packages once instead of once per file.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
