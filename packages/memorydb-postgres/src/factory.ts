// @km/memorydb-postgres/factory: how hosts build this connector from configuration; loads no SDK until used.
export { postgresMemoryDbFactory } from './postgres-factory.js';
