// @km/memorydb-qdrant/factory: how hosts build this connector from configuration; loads no SDK until used.
export { qdrantMemoryDbFactory } from './qdrant-factory.js';
