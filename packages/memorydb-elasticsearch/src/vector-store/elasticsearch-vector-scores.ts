import type { DistanceFunction } from '@km/core';

/**
 * An Elasticsearch kNN `_score` back in km's convention for the distance function. The scores
 * Elasticsearch documents for `dense_vector` similarities, and their inverses:
 * - `cosine`: `_score = (1 + cos) / 2`, so `cos = 2 * _score - 1`;
 * - `max_inner_product` (km's `dot`): `_score = dot < 0 ? 1 / (1 - dot) : dot + 1`, so
 *   `dot = _score < 1 ? 1 - 1 / _score : _score - 1`;
 * - `l2_norm` (km's `euclidean`): `_score = 1 / (1 + d²)`, so `d = sqrt(1 / _score - 1)`.
 * Elasticsearch computes in float32, so a score carries that rounding.
 *
 * ```ts
 * scoreFromElasticsearch('cosine', 0.9); // 0.8
 * scoreFromElasticsearch('euclidean', 0.2); // 2
 * ```
 */
export function scoreFromElasticsearch(distance: DistanceFunction, score: number): number {
  switch (distance) {
    case 'cosine':
      return 2 * score - 1;
    case 'dot':
      return score < 1 ? 1 - 1 / score : score - 1;
    case 'euclidean':
      return Math.sqrt(Math.max(0, 1 / score - 1));
  }
}

/** The Elasticsearch `_score` of a km score (the inverse of {@link scoreFromElasticsearch}). */
export function scoreToElasticsearch(distance: DistanceFunction, value: number): number {
  switch (distance) {
    case 'cosine':
      return (1 + value) / 2;
    case 'dot':
      return value < 0 ? 1 / (1 - value) : value + 1;
    case 'euclidean':
      return 1 / (1 + value * value);
  }
}

/**
 * The cosine of an Elasticsearch kNN score on a `cosine` field, `2 * score - 1`.
 * @deprecated use `scoreFromElasticsearch('cosine', score)`.
 */
export function relevanceFromScore(score: number): number {
  return scoreFromElasticsearch('cosine', score);
}

/**
 * The Elasticsearch score of a cosine, `(1 + cosine) / 2`.
 * @deprecated use `scoreToElasticsearch('cosine', relevance)`.
 */
export function scoreFromRelevance(relevance: number): number {
  return scoreToElasticsearch('cosine', relevance);
}
