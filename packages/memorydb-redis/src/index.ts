// @km/memorydb-redis: written in issue 17.
export {};
