import type { DistanceFunction } from '@km/core';

/** The DISTANCE_METRIC of a vector field searched with a distance function. */
export const DISTANCE_METRICS: Readonly<Record<DistanceFunction, 'COSINE' | 'IP' | 'L2'>> = {
  cosine: 'COSINE',
  dot: 'IP',
  euclidean: 'L2',
};

/**
 * The score of a KNN hit in km's convention, from the distance RediSearch reports:
 * COSINE reports `1 - cos` (→ the cosine similarity), IP `1 - dot` (→ the dot product), L2 the
 * squared Euclidean distance (→ the distance itself).
 *
 * ```ts
 * scoreFromRedisDistance('cosine', 0.25);   // 0.75
 * scoreFromRedisDistance('euclidean', 9);   // 3
 * ```
 */
export function scoreFromRedisDistance(distance: DistanceFunction, reported: number): number {
  if (distance === 'euclidean') return Math.sqrt(Math.max(0, reported));
  return 1 - reported;
}
