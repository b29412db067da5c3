/**
 * The cosine similarity of a KNN result on a COSINE vector field, from the distance RediSearch
 * returns (`1 - cos`, in [0, 2]).
 */
export function relevanceFromDistance(distance: number): number {
  return 1 - distance;
}

/** The COSINE distance RediSearch reports for a cosine similarity (the inverse of {@link relevanceFromDistance}). */
export function distanceFromRelevance(relevance: number): number {
  return 1 - relevance;
}
