export { PostgresMemoryDb } from './postgres-memory-db.js';
export { DEFAULT_COLUMNS, type PostgresColumns, type PostgresMemoryDbOptions } from './postgres-config.js';
export { toSqlCondition, type SqlCondition } from './filters.js';
/** Re-exported from @km/core, where every connector shares the `key:value` tag encoding. */
export { encodeTag, encodeTags, decodeTags } from '@km/core';
export { quoteIdent } from './identifiers.js';
export type { PGliteLike, PgPoolLike, PgPoolClientLike } from './sql-client.js';
export { startPgliteServer, type PgliteServer, type ServablePGlite } from './pglite-server.js';
