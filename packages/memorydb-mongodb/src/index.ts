export { MongoDbMemoryDb } from './mongodb-memory-db.js';
export { MongoDbMemoryDbDriver } from './mongodb-memory-db-driver.js';
export type { MongoDbMemoryDbOptions } from './mongodb-config.js';
export { Fields, toDocument, toDoubles, toRecord, type MongoDbRecord } from './mongodb-documents.js';
export { toMongoDbFilter, type MongoDbFilter, type MongoDbTagCondition } from './mongodb-filters.js';
export {
  SEARCH_INDEX_NAME,
  MAX_CANDIDATES,
  MAX_DIMENSIONS,
  declaredVectorSize,
  numCandidatesFor,
  searchIndexDescription,
  vectorSearchPipeline,
  type SearchIndexInfo,
  type VectorSearchRequest,
} from './search-index.js';
export { waitUntilQueryable } from './search-index-readiness.js';
export { listRecords, type FindSorted } from './record-listing.js';
export { relevanceFromScore, scoreFromRelevance } from './relevance.js';
export { checkCollectionPrefix, checkDatabaseName, collectionNameLimit, MAX_NAMESPACE_BYTES } from './collection-names.js';
export { translateMongoError, isVectorSearchUnavailable, VectorSearchUnavailableError } from './mongodb-errors.js';
export { mongoDbMemoryDbFactory } from './mongodb-factory.js';
export { MongoDbVectorStore } from './vector-store/mongodb-vector-store.js';
export { MongoDbVectorStoreDriver, SCORE_FIELD } from './vector-store/mongodb-vector-store-driver.js';
export type { MongoDbVectorStoreOptions } from './vector-store/mongodb-vector-store-options.js';
export { toMongoVectorFilter, MATCH_NOTHING } from './vector-store/mongodb-vector-filter.js';
export { checkFieldNames, fromVectorDocument, toVectorDocument, KEY_FIELD } from './vector-store/mongodb-vector-documents.js';
export { checkVectorIndex, vectorIndexDescription, VECTOR_INDEX_NAME } from './vector-store/mongodb-vector-index.js';
export { scoreFromVectorSearchScore, SIMILARITIES } from './vector-store/mongodb-vector-scores.js';
export { recordQueryPipeline } from './vector-store/mongodb-vector-query.js';
