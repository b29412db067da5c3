// @km/memorydb-mongodb: written in issue 17.
export {};
