export { PostgresMemoryDb } from './postgres-memory-db.js';
export { DEFAULT_COLUMNS, type PostgresColumns, type PostgresMemoryDbOptions } from './postgres-config.js';
export { toSqlCondition, type SqlCondition } from './filters.js';
export { encodeTag, encodeTags, decodeTags } from './tag-encoding.js';
export { quoteIdent } from './identifiers.js';
export type { PGliteLike, PgPoolLike, PgPoolClientLike } from './sql-client.js';
