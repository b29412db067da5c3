import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'ai-anthropic', include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
