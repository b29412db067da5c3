import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'storage-s3', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
