import { createRequire } from 'node:module';

/** Version of @km/cli, from its package.json (read at run time, so it is never stale). */
export const CLI_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
