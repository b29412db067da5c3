export { AzureAiSearchMemoryDb } from './azure-ai-search-memory-db.js';
export { AzureAiSearchMemoryDbDriver } from './azure-ai-search-memory-db-driver.js';
export type { AzureAiSearchMemoryDbOptions, SearchCredential } from './azure-ai-search-config.js';
export { indexDefinition, vectorSizeOfDefinition, VECTOR_PROFILE, HNSW_CONFIGURATION, type HnswSettings } from './index-definition.js';
export { toODataFilter, odataString, searchInDelimiter, TAGS_FIELD } from './odata-filters.js';
export { documentKeyOf, recordIdOfKey, MAX_DOCUMENT_KEY_LENGTH, MAX_RECORD_ID_UNITS } from './document-key.js';
export { azureIndexName, checkIndexPrefix, MAX_AZURE_INDEX_NAME_LENGTH } from './index-names.js';
export { toDocument, toRecord, selectFields, type SearchDocument } from './search-documents.js';
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
export { checkVectorIndex, vectorIndexDefinition, EDM_TYPES } from './vector-store/azure-vector-index.js';
export { METRICS, scoreOfHit } from './vector-store/azure-vector-scores.js';
