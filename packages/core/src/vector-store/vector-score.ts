import type { DistanceFunction } from './record-definition-types.js';

/**
 * The score of two vectors of equal length in the convention of a distance function: cosine
 * similarity (in [-1, 1], 0 when either vector is all zeros) for `cosine`, the dot product for
 * `dot`, the Euclidean distance for `euclidean`. Computed in double precision.
 *
 * ```ts
 * vectorScore('euclidean', [0, 0], [3, 4]); // 5
 * ```
 */
export function vectorScore(distance: DistanceFunction, a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  let squared = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (distance === 'euclidean') {
      squared += (x - y) * (x - y);
    } else {
      dot += x * y;
      na += x * x;
      nb += y * y;
    }
  }
  if (distance === 'euclidean') return Math.sqrt(squared);
  if (distance === 'dot') return dot;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Whether score `x` is closer than score `y`: higher for `cosine` and `dot`, lower for `euclidean`.
 *
 * ```ts
 * isBetter('euclidean', 0.5, 2); // true
 * ```
 */
export function isBetter(distance: DistanceFunction, x: number, y: number): boolean {
  return distance === 'euclidean' ? x < y : x > y;
}

/**
 * Whether a score is kept by `minScore`: for `cosine` and `dot` scores at or above it, for
 * `euclidean` (a distance) scores at or below it. Everything passes without a `minScore`.
 *
 * ```ts
 * passesMinScore('euclidean', 0.3, 0.5); // true
 * ```
 */
export function passesMinScore(distance: DistanceFunction, score: number, minScore: number | undefined): boolean {
  if (minScore === undefined) return true;
  return distance === 'euclidean' ? score <= minScore : score >= minScore;
}
