import type { DistanceFunction } from '@km/core';

/** The `similarity` of an Atlas Vector Search `vector` field for a distance function. */
export const SIMILARITIES: Readonly<Record<DistanceFunction, 'cosine' | 'dotProduct' | 'euclidean'>> = {
  cosine: 'cosine',
  dot: 'dotProduct',
  euclidean: 'euclidean',
};

/**
 * The score of a `$vectorSearch` hit in km's convention, from Atlas's normalised
 * `vectorSearchScore`: `cosine` and `dotProduct` are scored `(1 + x) / 2` (→ `x = 2s - 1`),
 * `euclidean` `1 / (1 + d)` (→ `d = 1 / s - 1`).
 *
 * ```ts
 * scoreFromVectorSearchScore('cosine', 0.9);      // 0.8
 * scoreFromVectorSearchScore('euclidean', 0.25);  // 3
 * ```
 */
export function scoreFromVectorSearchScore(distance: DistanceFunction, score: number): number {
  if (distance === 'euclidean') return score > 0 ? 1 / score - 1 : Number.POSITIVE_INFINITY;
  return 2 * score - 1;
}
