// @km/memorydb-postgres/testing: dev and test support, not part of the connector's API.
export { startPgliteServer, type PgliteServer, type ServablePGlite } from './testing/pglite-server.js';
export { freshPglite } from './testing/fresh-pglite.js';
