/**
 * Atlas Vector Search scores a `cosine` index hit as `(1 + cos) / 2`, in [0, 1]
 * (`{ $meta: 'vectorSearchScore' }`). km's relevance is the cosine itself, in [-1, 1].
 */
export function relevanceFromScore(score: number): number {
  return 2 * score - 1;
}

/** The Atlas score of a cosine relevance (the inverse of {@link relevanceFromScore}). */
export function scoreFromRelevance(relevance: number): number {
  return (1 + relevance) / 2;
}
