// @km/memorydb-mongodb/factory: written in issue 17.
export {};
