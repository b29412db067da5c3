import { defineProject } from 'vitest/config';

export default defineProject({
  // The browser tests start a service and Chromium: allow them time on a busy 2-core machine.
  test: { name: 'console', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 60_000 },
});
