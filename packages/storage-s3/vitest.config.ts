import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'storage-s3', include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
