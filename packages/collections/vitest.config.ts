import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'collections',
    isolate: false,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
