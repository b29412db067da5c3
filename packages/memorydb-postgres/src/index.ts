export {
  PostgresMemoryDb,
  type PostgresBulkImportOptions,
  type PostgresBulkImportReport,
  type TableUpgrade,
} from './postgres-memory-db.js';
export type { PostgresMemoryDbDriver } from './postgres-memory-db-driver.js';
export { DEFAULT_COLUMNS, type PostgresColumns, type PostgresMemoryDbOptions } from './postgres-config.js';
export type { PGliteLike, PgPoolLike, PgPoolClientLike } from './sql-client.js';
export { postgresMemoryDbFactory } from './postgres-factory.js';
export { PostgresContentStorage } from './content-storage/postgres-content-storage.js';
export type { PostgresContentStorageOptions } from './content-storage/content-storage-options.js';
export { postgresContentStorageFactory } from './content-storage/postgres-content-storage-factory.js';
export { PostgresVectorStore } from './vector-store/postgres-vector-store.js';
export { PostgresVectorStoreDriver } from './vector-store/postgres-vector-store-driver.js';
export type { PostgresVectorStoreOptions } from './vector-store/postgres-vector-store-options.js';
export { filterToSql, type SqlCondition } from './vector-store/filter-sql.js';
