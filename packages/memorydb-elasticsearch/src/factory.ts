// @km/memorydb-elasticsearch/factory: how hosts build this connector from configuration; loads no SDK until used.
export { elasticsearchMemoryDbFactory } from './elasticsearch-factory.js';
