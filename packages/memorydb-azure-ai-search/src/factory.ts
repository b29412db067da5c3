// @km/memorydb-azure-ai-search/factory: written in issue 17.
export {};
