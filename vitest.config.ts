import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'tests-integration'],
    // Vitest's default is one worker less than the cores: a single worker on a 2-core machine,
    // where most test files spend their time waiting on servers, sockets and child processes.
    // Two at least; each project runs its files in a shared module graph (`isolate: false` in the
    // project configs), so a worker imports km's packages once instead of once per file.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
