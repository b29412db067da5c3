/** The name of the vector search index on each collection of `MongoDbMemoryDb` (the typed store's is `kmvs_vector`). */
export const SEARCH_INDEX_NAME = 'km_vector';

/** Atlas Vector Search's ceiling for `numCandidates` and `limit`. */
export const MAX_CANDIDATES = 10_000;

/** The largest `numDimensions` of a vector search index. */
export const MAX_DIMENSIONS = 8192;

/** What `$listSearchIndexes` says about an index (the fields km reads). */
export interface SearchIndexInfo {
  name?: string;
  status?: string;
  queryable?: boolean;
  message?: string;
  latestDefinition?: { fields?: Array<{ type?: string; path?: string; numDimensions?: number }> };
}

/** Candidates for a search of `limit` results: the option, else max(100, 10 × limit), within [limit, 10000]. */
export function numCandidatesFor(limit: number, option: number | undefined): number {
  const wanted = option ?? Math.max(100, 10 * limit);
  return Math.min(MAX_CANDIDATES, Math.max(limit, Math.floor(wanted)));
}
