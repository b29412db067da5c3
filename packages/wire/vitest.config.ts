import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'wire', isolate: false, include: ['test/**/*.test.ts'] },
});
