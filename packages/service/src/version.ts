import { createRequire } from 'node:module';

/** Version of @km/service, from its package.json. */
export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
