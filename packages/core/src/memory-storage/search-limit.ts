/** Most results one search returns, whatever limit it asks for (bounds the memory a search takes). */
export const MAX_SEARCH_LIMIT = 10_000;

/**
 * The number of results a search returns: `limit` when positive (rounded up to a whole number,
 * at most {@link MAX_SEARCH_LIMIT}), else the store's maximum.
 */
export function searchLimit(limit: number | undefined, maximum: number): number {
  return limit !== undefined && limit > 0 ? Math.min(Math.ceil(limit), MAX_SEARCH_LIMIT) : maximum;
}
