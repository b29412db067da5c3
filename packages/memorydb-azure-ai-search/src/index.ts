// @km/memorydb-azure-ai-search: written in issue 17.
export {};
