import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'storage-azure-blobs', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
