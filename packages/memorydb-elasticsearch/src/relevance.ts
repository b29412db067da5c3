/**
 * Elasticsearch scores a kNN hit on a `cosine` field as `(1 + cos) / 2`, in [0, 1]. km's
 * relevance is the cosine itself, in [-1, 1], the same number on every connector.
 */
export function relevanceFromScore(score: number): number {
  return 2 * score - 1;
}

/** The Elasticsearch score of a cosine relevance (the inverse of {@link relevanceFromScore}). */
export function scoreFromRelevance(relevance: number): number {
  return (1 + relevance) / 2;
}
