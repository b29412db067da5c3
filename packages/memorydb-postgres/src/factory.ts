// @km/memorydb-postgres/factory: how hosts build this connector from configuration; loads no SDK until used.
export { postgresMemoryDbFactory } from './postgres-factory.js';
export { postgresContentStorageFactory } from './content-storage/postgres-content-storage-factory.js';
