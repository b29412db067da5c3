import { defineProject } from 'vitest/config';
import { sharedServerOptions } from '../../vitest.shared.js';

export default defineProject({
  // The browser tests start a service and Chromium: allow them time on a busy 2-core machine.
  test: {
    server: sharedServerOptions,
    name: 'console',
    isolate: false,
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
