import { defineProject } from 'vitest/config';
import { sharedServerOptions } from '../../vitest.shared.js';

export default defineProject({
  test: {
    server: sharedServerOptions,
    name: 'core',
    isolate: false,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
