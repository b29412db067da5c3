// @km/memorydb-mongodb/factory: how hosts build this connector from configuration; loads no driver until used.
export { mongoDbMemoryDbFactory } from './mongodb-factory.js';
