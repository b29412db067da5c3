/**
 * Azure AI Search scores a vector hit on a `cosine` field `1 / (1 + cosine distance)`, with the
 * distance `1 - cos`: so `1 / (2 - cos)`, in [1/3, 1]. km's relevance is the cosine itself,
 * in [-1, 1], the same number on every connector: `cos = 2 - 1 / score`.
 */
export function relevanceFromScore(score: number): number {
  return score > 0 ? 2 - 1 / score : -1;
}

/** The Azure AI Search score of a cosine relevance (the inverse of {@link relevanceFromScore}). */
export function scoreFromRelevance(relevance: number): number {
  return 1 / (2 - relevance);
}
