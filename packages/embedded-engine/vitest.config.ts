import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'embedded-engine',
    isolate: false,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
