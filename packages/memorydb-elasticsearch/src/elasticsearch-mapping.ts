import type { estypes } from '@elastic/elasticsearch';
import type { ElasticsearchMemoryDbOptions } from './elasticsearch-config.js';
import { TAGS_FIELD } from './elasticsearch-filters.js';

/** The mapping of a new km index: strict, with the vector under a plain float HNSW graph. */
export function indexMappings(vectorSize: number, hnsw: ElasticsearchMemoryDbOptions['hnsw']): estypes.MappingTypeMapping {
  return {
    dynamic: 'strict',
    properties: {
      id: { type: 'keyword' },
      [TAGS_FIELD]: { type: 'keyword' },
      payload: { type: 'object', enabled: false },
      content: { type: 'text' },
      embedding: {
        type: 'dense_vector',
        dims: vectorSize,
        index: true,
        similarity: 'cosine',
        // Plain HNSW on float vectors: quantised graphs (Elasticsearch's default for large
        // vectors) would move relevance away from the exact cosine.
        index_options: { type: 'hnsw', m: hnsw?.m ?? 16, ef_construction: hnsw?.efConstruction ?? 100 },
      },
    },
  };
}

/** Shards and replicas of a new index, when configured. */
export function indexSettings(options: ElasticsearchMemoryDbOptions): estypes.IndicesIndexSettings {
  const { numberOfShards: shards, numberOfReplicas: replicas } = options;
  return { ...(shards ? { number_of_shards: shards } : {}), ...(replicas !== undefined ? { number_of_replicas: replicas } : {}) };
}
