/**
 * A deterministic pseudo-random source (mulberry32): the same seed gives the same numbers on
 * every machine, so a failing case can be replayed.
 *
 * ```ts
 * const next = seededRandom(7);
 * next(); // in [0, 1)
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` vectors of `dimensions` values in [-1, 1), the same for the same seed. */
export function seededVectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dimensions }, () => next() * 2 - 1));
}
