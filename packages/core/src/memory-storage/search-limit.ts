/** The number of results a search returns: `limit` when positive, else the store's maximum. */
export function searchLimit(limit: number | undefined, maximum: number): number {
  return limit !== undefined && limit > 0 ? limit : maximum;
}
