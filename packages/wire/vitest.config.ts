import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'wire', include: ['test/**/*.test.ts'] },
});
