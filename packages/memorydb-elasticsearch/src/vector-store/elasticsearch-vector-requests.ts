import type { estypes } from '@elastic/elasticsearch';
import type { RecordDefinition } from '@km/core';
import type { DriverRecordQuery, DriverVectorQuery } from '@km/core/connector';
import { vectorSourceExcludes } from './elasticsearch-vector-documents.js';
import { toElasticsearchVectorFilter } from './elasticsearch-vector-filter.js';
import type { ElasticsearchFieldStorage } from './elasticsearch-vector-store-options.js';

/** Elasticsearch's ceiling for k, num_candidates and a page of hits. */
export const MAX_WINDOW = 10_000;
/** Hits per page of a read by filter (`search_after` pages through more). */
export const QUERY_PAGE = 1000;

/**
 * The search body of a vector search: a kNN query on the vector's field with the filter inside
 * `knn.filter` (applied during the graph search, so results are the nearest matching records),
 * `k` = the limit and `num_candidates` = `numCandidates` or max(100, 2k), both at most 10,000;
 * vectors left out of `_source` unless asked for.
 *
 * ```ts
 * knnSearchRequest(Hotel, { vectorProperty, vector, limit: 3, filter: undefined, includeVectors: false }, undefined);
 * // { knn: { field: 'embedding', query_vector: [...], k: 3, num_candidates: 100 }, size: 3, _source: { excludes: ['embedding'] } }
 * ```
 */
export function knnSearchRequest(
  definition: RecordDefinition,
  query: Omit<DriverVectorQuery, 'signal'>,
  numCandidates: number | undefined,
  storage: ElasticsearchFieldStorage = {},
): estypes.SearchRequest {
  const filter = toElasticsearchVectorFilter(query.filter);
  const k = Math.min(MAX_WINDOW, Math.max(1, query.limit));
  return {
    knn: {
      field: query.vectorProperty.storageName,
      query_vector: Array.from(query.vector),
      k,
      num_candidates: Math.min(MAX_WINDOW, Math.max(k, numCandidates ?? Math.max(100, 2 * k))),
      ...(filter ? { filter } : {}),
    },
    size: k,
    _source: { excludes: vectorSourceExcludes(definition, query.includeVectors, storage) },
  };
}

/**
 * The search body of (the first page of) a read by filter: the filter as the query, sorted by
 * the fields asked for (missing values last either way), then by the key (`{ key: 'asc' }`), at
 * most {@link QUERY_PAGE} hits; the driver asks for the next page with `search_after`.
 */
export function recordQueryRequest(
  definition: RecordDefinition,
  query: Omit<DriverRecordQuery, 'signal'>,
  storage: ElasticsearchFieldStorage = {},
): estypes.SearchRequest {
  const filter = toElasticsearchVectorFilter(query.filter);
  const key = definition.key.storageName;
  const sort: estypes.SortCombinations[] = query.orderBy.map((o) =>
    o.storageName === key
      ? { [key]: o.descending ? 'desc' : 'asc' }
      : { [o.storageName]: { order: o.descending ? 'desc' : 'asc', missing: '_last', unmapped_type: 'keyword' } },
  );
  if (!query.orderBy.some((o) => o.storageName === key)) sort.push({ [key]: 'asc' });
  return {
    query: filter ?? { match_all: {} },
    sort,
    size: Math.min(QUERY_PAGE, Math.max(0, query.limit)),
    _source: { excludes: vectorSourceExcludes(definition, query.includeVectors, storage) },
  };
}
