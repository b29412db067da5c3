import { type DistanceFunction, KmError } from '@km/core';
import { vectorScore } from '@km/core/connector';
import { relevanceFromScore } from '../relevance.js';

/** The HNSW `metric` of a distance function. */
export const METRICS: Readonly<Record<DistanceFunction, 'cosine' | 'dotProduct' | 'euclidean'>> = {
  cosine: 'cosine',
  dot: 'dotProduct',
  euclidean: 'euclidean',
};

/**
 * The score of a hit in km's convention. For `cosine` the service documents `@search.score` as
 * `1 / (1 + (1 - cos))`, turned back into the cosine (`relevanceFromScore`). For `dot` and
 * `euclidean` it documents no formula, so the score is computed from the hit's vector (which the
 * search then returns) with core's `vectorScore`; the service's order is kept.
 *
 * ```ts
 * scoreOfHit('cosine', 0.8, query, undefined); // 0.75
 * scoreOfHit('euclidean', 0.2, query, [3, 4]); // the distance between query and [3, 4]
 * ```
 */
export function scoreOfHit(
  distance: DistanceFunction,
  searchScore: number,
  query: Float32Array,
  hitVector: readonly number[] | undefined,
): number {
  if (distance === 'cosine') return relevanceFromScore(searchScore);
  if (!hitVector) {
    throw new KmError('upstream_error', `a ${distance} hit came back without its vector (is the vector field retrievable?)`, {
      connector: 'azureaisearch',
    });
  }
  return vectorScore(distance, query, hitVector);
}
