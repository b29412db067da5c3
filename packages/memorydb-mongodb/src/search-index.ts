import type { Document } from 'mongodb';
import { Fields, toDoubles } from './mongodb-documents.js';
import type { MongoDbFilter } from './mongodb-filters.js';

/** The name of km's vector search index on each collection. */
export const SEARCH_INDEX_NAME = 'km_vector';

/** Atlas Vector Search's ceiling for `numCandidates` and `limit`. */
export const MAX_CANDIDATES = 10_000;

/** The largest `numDimensions` of a vector search index. */
export const MAX_DIMENSIONS = 8192;

/**
 * The `vectorSearch` index km creates: the `embedding` vector with cosine similarity, and
 * `tags` as a `filter` field so filters are applied during the search (pre-filter).
 */
export function searchIndexDescription(vectorSize: number): { name: string; type: 'vectorSearch'; definition: Document } {
  return {
    name: SEARCH_INDEX_NAME,
    type: 'vectorSearch',
    definition: {
      fields: [
        { type: 'vector', path: Fields.embedding, numDimensions: vectorSize, similarity: 'cosine' },
        { type: 'filter', path: Fields.tags },
      ],
    },
  };
}

/** What `$listSearchIndexes` says about an index (the fields km reads). */
export interface SearchIndexInfo {
  name?: string;
  status?: string;
  queryable?: boolean;
  message?: string;
  latestDefinition?: { fields?: Array<{ type?: string; path?: string; numDimensions?: number }> };
}

/** The vector size declared by a km search index, or undefined when it has no `embedding` vector field. */
export function declaredVectorSize(info: SearchIndexInfo): number | undefined {
  const field = info.latestDefinition?.fields?.find((f) => f.type === 'vector' && f.path === Fields.embedding);
  return typeof field?.numDimensions === 'number' ? field.numDimensions : undefined;
}

/** Candidates for a search of `limit` results: the option, else max(100, 10 × limit), within [limit, 10000]. */
export function numCandidatesFor(limit: number, option: number | undefined): number {
  const wanted = option ?? Math.max(100, 10 * limit);
  return Math.min(MAX_CANDIDATES, Math.max(limit, Math.floor(wanted)));
}

/** What one similarity search asks for. */
export interface VectorSearchRequest {
  vector: Float32Array | readonly number[];
  filter: MongoDbFilter | undefined;
  limit: number;
  numCandidates: number | undefined;
  withEmbeddings: boolean;
}

/**
 * The aggregation of a similarity search: `$vectorSearch` first (the filter as its pre-filter),
 * then a projection that adds the score (`vectorSearchScore`, `(1 + cos) / 2` for cosine) and
 * leaves the vector out unless it is wanted.
 */
export function vectorSearchPipeline(request: VectorSearchRequest): Document[] {
  const limit = Math.min(MAX_CANDIDATES, request.limit);
  return [
    {
      $vectorSearch: {
        index: SEARCH_INDEX_NAME,
        path: Fields.embedding,
        queryVector: toDoubles(request.vector),
        numCandidates: numCandidatesFor(limit, request.numCandidates),
        limit,
        ...(request.filter ? { filter: request.filter } : {}),
      },
    },
    {
      $project: {
        [Fields.tags]: 1,
        [Fields.payload]: 1,
        ...(request.withEmbeddings ? { [Fields.embedding]: 1 } : {}),
        score: { $meta: 'vectorSearchScore' },
      },
    },
  ];
}
