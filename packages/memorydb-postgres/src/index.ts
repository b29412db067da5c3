export { PostgresMemoryDb } from './postgres-memory-db.js';
export { PostgresMemoryDbDriver } from './postgres-memory-db-driver.js';
export { DEFAULT_COLUMNS, type PostgresColumns, type PostgresMemoryDbOptions } from './postgres-config.js';
export { toSqlCondition, type SqlCondition } from './filters.js';
export type { PGliteLike, PgPoolLike, PgPoolClientLike } from './sql-client.js';
export { postgresMemoryDbFactory } from './postgres-factory.js';
export { PostgresContentStorage } from './content-storage/postgres-content-storage.js';
export type { PostgresContentStorageOptions } from './content-storage/content-storage-options.js';
export { postgresContentStorageFactory } from './content-storage/postgres-content-storage-factory.js';
