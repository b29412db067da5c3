import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'embedded-engine',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
