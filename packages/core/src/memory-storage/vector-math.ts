import { InvalidInputError } from '../errors/km-error.js';

/** L2 norm of a vector. */
export function l2norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

/** A unit-length copy of `vector` (all zeros stays all zeros). */
export function normalize(vector: ArrayLike<number>): Float32Array {
  const norm = l2norm(vector);
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/** Cosine similarity of two vectors (0 when either is all zeros). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Throws `invalid_argument` unless every component is a finite number. */
export function checkVector(vector: unknown, what = 'vector'): Float32Array | number[] {
  if (!(vector instanceof Float32Array) && !Array.isArray(vector)) {
    throw new InvalidInputError('invalid_argument', `${what} must be a Float32Array or an array of numbers`);
  }
  for (let i = 0; i < vector.length; i++) {
    if (typeof vector[i] !== 'number' || !Number.isFinite(vector[i])) {
      throw new InvalidInputError('invalid_argument', `${what} has a non-finite component at ${i}`);
    }
  }
  return vector;
}
