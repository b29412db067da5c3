// @km/memorydb-azure-ai-search/factory: how hosts build this connector from configuration; loads no SDK until used.
export { azureAiSearchMemoryDbFactory } from './azure-ai-search-factory.js';
