import { configDefaults, defineProject } from 'vitest/config';
import { sharedServerOptions } from '../../vitest.shared.js';

// Long cases (crash loops, outages, lease timing: `*.long.test.ts`) run with `pnpm test:long`
// (KM_TEST_LONG=1), not in `pnpm test`; CI runs both.
const long = process.env.KM_TEST_LONG === '1';

export default defineProject({
  test: {
    server: sharedServerOptions,
    name: 'conformance',
    isolate: long,
    include: long ? ['test/**/*.long.test.ts'] : ['test/**/*.test.ts'],
    exclude: long ? configDefaults.exclude : [...configDefaults.exclude, 'test/**/*.long.test.ts'],
    testTimeout: 60_000,
  },
});
