export { ElasticsearchMemoryDb, toDocument, toRecord, type ElasticsearchRecord } from './elasticsearch-memory-db.js';
export type { ElasticsearchMemoryDbOptions } from './elasticsearch-config.js';
export { toElasticsearchFilter, TAGS_FIELD } from './elasticsearch-filters.js';
export { relevanceFromScore, scoreFromRelevance } from './relevance.js';
export { elasticsearchIndexName, checkIndexPrefix, MAX_ELASTICSEARCH_INDEX_BYTES } from './index-names.js';
export { documentIdOf, MAX_ELASTICSEARCH_ID_BYTES } from './document-id.js';
export { translateElasticsearchError } from './elasticsearch-errors.js';
