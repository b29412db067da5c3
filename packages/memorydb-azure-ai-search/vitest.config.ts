import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'memorydb-azure-ai-search', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
