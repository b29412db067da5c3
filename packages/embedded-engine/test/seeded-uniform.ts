/** Seeded uniform numbers in [-0.5, 0.5) (a linear congruential generator): the same numbers for the same seed. */
export function seededUniform(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}
