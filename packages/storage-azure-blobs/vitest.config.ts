import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'storage-azure-blobs', include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
