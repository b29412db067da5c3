export { ElasticsearchMemoryDb, KM_FIELD_STORAGE } from './elasticsearch-memory-db.js';
export type { ElasticsearchMemoryDbOptions } from './elasticsearch-config.js';
export { elasticsearchIndexName, checkIndexPrefix, MAX_ELASTICSEARCH_INDEX_BYTES } from './index-names.js';
export { documentIdOf, MAX_ELASTICSEARCH_ID_BYTES } from './document-id.js';
export { translateElasticsearchError } from './elasticsearch-errors.js';
export { elasticsearchMemoryDbFactory } from './elasticsearch-factory.js';
export { ElasticsearchVectorStore } from './vector-store/elasticsearch-vector-store.js';
export { ElasticsearchVectorStoreDriver } from './vector-store/elasticsearch-vector-store-driver.js';
export type {
  ElasticsearchFieldStorage,
  ElasticsearchVectorStoreDriverOptions,
  ElasticsearchVectorStoreOptions,
} from './vector-store/elasticsearch-vector-store-options.js';
export { toElasticsearchVectorFilter } from './vector-store/elasticsearch-vector-filter.js';
export { CONTENT_FIELD, lexicalScore, lexicalSearchRequest } from './vector-store/elasticsearch-vector-lexical.js';
export { vectorIndexMappings, ELASTICSEARCH_SIMILARITIES } from './vector-store/elasticsearch-vector-mapping.js';
export {
  relevanceFromScore,
  scoreFromElasticsearch,
  scoreFromRelevance,
  scoreToElasticsearch,
} from './vector-store/elasticsearch-vector-scores.js';
export { indexOfCollection, collectionOfIndex } from './vector-store/elasticsearch-vector-index-names.js';
