import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'collections',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
