// @km/memorydb-redis/factory: how hosts build this connector from configuration; loads no SDK until used.
export { redisMemoryDbFactory } from './redis-factory.js';
