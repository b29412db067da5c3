export { AzureAiSearchMemoryDb } from './azure-ai-search-memory-db.js';
export type { AzureAiSearchMemoryDbOptions, HnswSettings, SearchCredential } from './azure-ai-search-config.js';
export { odataString, searchInDelimiter } from './odata-literals.js';
export { documentKeyOf, recordIdOfKey, MAX_DOCUMENT_KEY_LENGTH, MAX_RECORD_ID_UNITS } from './document-key.js';
export { azureIndexName, checkIndexPrefix, MAX_AZURE_INDEX_NAME_LENGTH } from './index-names.js';
export { relevanceFromScore, scoreFromRelevance } from './relevance.js';
export { lexicalScore, simpleQueryText } from './lexical-search.js';
export { translateAzureSearchError } from './azure-ai-search-errors.js';
export { azureAiSearchMemoryDbFactory } from './azure-ai-search-factory.js';
export { AzureAiSearchVectorStore } from './vector-store/azure-ai-search-vector-store.js';
export { AzureAiSearchVectorStoreDriver } from './vector-store/azure-ai-search-vector-store-driver.js';
export type { AzureAiSearchVectorStoreOptions } from './vector-store/azure-ai-search-vector-store-options.js';
export { toODataVectorFilter, MATCH_NOTHING } from './vector-store/azure-vector-filter.js';
export {
  checkFieldNames,
  documentKeyFor,
  fromAzureDocument,
  keyOfDocumentKey,
  toAzureDocument,
} from './vector-store/azure-vector-documents.js';
export { checkVectorIndex, vectorIndexDefinition, vectorDimensionsOf, EDM_TYPES } from './vector-store/azure-vector-index.js';
export { METRICS, scoreOfHit } from './vector-store/azure-vector-scores.js';
