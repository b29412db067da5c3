import { defineProject } from 'vitest/config';
import { sharedServerOptions } from '../../vitest.shared.js';

export default defineProject({
  test: { server: sharedServerOptions, name: 'queue-rabbitmq', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
