import type { SearchIndex } from '@azure/search-documents';
import { TAGS_FIELD } from './odata-filters.js';

/** Names of the vector search settings in every km index. */
export const VECTOR_PROFILE = 'km-vector-profile';
export const HNSW_CONFIGURATION = 'km-hnsw-cosine';

/** HNSW graph settings of new indexes; Azure AI Search's defaults (m 4, efConstruction 400, efSearch 500) when unset. */
export interface HnswSettings {
  m?: number;
  efConstruction?: number;
  efSearch?: number;
}

/**
 * The definition of a km index: `id` the key (the km id encoded, see `documentKeyOf`; filterable
 * and sortable for listing in id order), `recordId` the km id as given (stored for people
 * reading the index; km reads the key), `tags` the `key:value` strings (filterable), `payload`
 * the payload as JSON text (stored only), `content` the partition's text (searchable, not
 * returned), `embedding` the vector under an HNSW graph with cosine similarity.
 *
 * ```ts
 * await indexClient.createIndex(indexDefinition('km-notes', 1536));
 * ```
 */
export function indexDefinition(name: string, vectorSize: number, hnsw: HnswSettings = {}): SearchIndex {
  const parameters = {
    metric: 'cosine' as const,
    ...(hnsw.m !== undefined ? { m: hnsw.m } : {}),
    ...(hnsw.efConstruction !== undefined ? { efConstruction: hnsw.efConstruction } : {}),
    ...(hnsw.efSearch !== undefined ? { efSearch: hnsw.efSearch } : {}),
  };
  return {
    name,
    fields: [
      { name: 'id', type: 'Edm.String', key: true, filterable: true, sortable: true },
      { name: 'recordId', type: 'Edm.String' },
      { name: TAGS_FIELD, type: 'Collection(Edm.String)', filterable: true },
      { name: 'payload', type: 'Edm.String' },
      { name: 'content', type: 'Edm.String', searchable: true, hidden: true },
      {
        name: 'embedding',
        type: 'Collection(Edm.Single)',
        searchable: true,
        vectorSearchDimensions: vectorSize,
        vectorSearchProfileName: VECTOR_PROFILE,
      },
    ],
    vectorSearch: {
      algorithms: [{ name: HNSW_CONFIGURATION, kind: 'hnsw', parameters }],
      profiles: [{ name: VECTOR_PROFILE, algorithmConfigurationName: HNSW_CONFIGURATION }],
    },
  };
}

/** The vector size of a km index definition, or undefined when it has no km `embedding` field. */
export function vectorSizeOfDefinition(index: Pick<SearchIndex, 'fields'>): number | undefined {
  const field = index.fields.find((f) => f.name === 'embedding') as { vectorSearchDimensions?: number } | undefined;
  return typeof field?.vectorSearchDimensions === 'number' ? field.vectorSearchDimensions : undefined;
}
