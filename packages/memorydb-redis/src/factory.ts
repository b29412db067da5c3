// @km/memorydb-redis/factory: written in issue 17.
export {};
