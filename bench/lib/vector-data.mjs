// Seeded vector data of the vector bench (vector-search.bench.mjs), the exact top-k oracle its
// recall figures are measured against, and recall@k. Pure functions, tested in
// bench/test/vector-data.test.mjs. Vectors live in one flat Float32Array (row i at i * dims), so
// a million 384-dimension vectors are one 1.5 GB allocation, not a million objects.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/** The data sets the bench measures. */
export const DATA_SETS = ['random', 'clustered'];

/** Centres of the clustered data set. */
export const CLUSTERS = 1000;

/**
 * Standard deviation of the gaussian noise added to a centre, per dimension. The centres are
 * uniform in [-0.5, 0.5) (standard deviation 1/sqrt(12) = 0.2887 per dimension), so the noise's
 * length is half the centre's in any dimension: a point's cosine with its own centre is about
 * 0.89 and with another centre about 0 (± 1/sqrt(dims)), so a query's nearest neighbours are the
 * points of its cluster, ranked among themselves by the noise.
 */
export const CLUSTER_SPREAD = 0.5 / Math.sqrt(12);

/**
 * A seeded pseudo-random source of floats in [0, 1) (mulberry32: 32-bit state, passes the usual
 * statistical tests, the same sequence on every platform).
 */
export function createRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples (Box-Muller) drawn from `random`. */
export function createGaussian(random) {
  let spare;
  return () => {
    if (spare !== undefined) {
      const value = spare;
      spare = undefined;
      return value;
    }
    const u = 1 - random(); // (0, 1]: log(u) is finite
    const radius = Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * random();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}

/** Fills `target` with floats uniform in [-0.5, 0.5) from `seed` ({@link createRandom}'s sequence, inlined: it is hot); returns it. */
export function fillUniform(target, seed) {
  let state = seed >>> 0;
  for (let i = 0; i < target.length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    target[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  }
  return target;
}

/**
 * Fills `target` (rows of `dims` floats) with points around `centres`: each row picks a centre
 * uniformly at random and adds gaussian noise of standard deviation `spread` per dimension.
 * Returns the centre of each row.
 */
export function fillClustered(target, dims, centres, seed, spread = CLUSTER_SPREAD) {
  const random = createRandom(seed);
  const gaussian = createGaussian(random);
  const clusters = centres.length / dims;
  const rows = target.length / dims;
  const labels = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    const label = Math.floor(random() * clusters);
    labels[r] = label;
    const base = r * dims;
    const centre = label * dims;
    for (let j = 0; j < dims; j++) target[base + j] = centres[centre + j] + spread * gaussian();
  }
  return labels;
}

/**
 * A data set of `count` vectors and `queryCount` queries of `dims` floats, the same for the same
 * arguments. `random`: uniform in [-0.5, 0.5)^dims. `clustered`: {@link CLUSTERS} centres uniform
 * in that cube, each vector and each query a centre plus gaussian noise ({@link CLUSTER_SPREAD}).
 * The vectors are written to `into` when given (a Float32Array of count * dims floats, e.g. the
 * read floor's memory), so the data exists once.
 * @returns {{ kind: string, dims: number, count: number, vectors: Float32Array, queries: Float32Array,
 *   centres?: Float32Array, labels?: Int32Array, queryLabels?: Int32Array }}
 */
export function generateDataSet({ kind, count, queryCount, dims, seed = 42, into }) {
  const vectors = into ?? new Float32Array(count * dims);
  if (vectors.length !== count * dims) throw new RangeError(`into holds ${vectors.length} floats, not ${count} x ${dims}`);
  const queries = new Float32Array(queryCount * dims);
  if (kind === 'random') {
    fillUniform(vectors, seed);
    fillUniform(queries, seed + 1);
    return { kind, dims, count, vectors, queries };
  }
  if (kind === 'clustered') {
    const centres = fillUniform(new Float32Array(CLUSTERS * dims), seed);
    const labels = fillClustered(vectors, dims, centres, seed + 1);
    const queryLabels = fillClustered(queries, dims, centres, seed + 2);
    return { kind, dims, count, vectors, queries, centres, labels, queryLabels };
  }
  throw new RangeError(`unknown data set "${kind}" (expected ${DATA_SETS.join(' or ')})`);
}

/** Row `i` of a flat array of `dims`-float rows (a view, no copy). */
export function row(vectors, dims, i) {
  return vectors.subarray(i * dims, (i + 1) * dims);
}

/** The Euclidean length of every row. */
export function rowNorms(vectors, dims) {
  const rows = vectors.length / dims;
  const norms = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    const base = r * dims;
    for (let j = 0; j < dims; j++) sum += vectors[base + j] * vectors[base + j];
    norms[r] = Math.sqrt(sum);
  }
  return norms;
}

/**
 * The exact top `k` rows by cosine similarity to `query` (a plain loop in double precision), best
 * first, ties by lower row; `accept(row)` restricts the candidates. `norms` from {@link rowNorms}.
 * @returns {number[]} row numbers
 */
export function exactTopK(vectors, dims, norms, query, k, accept) {
  let queryNorm = 0;
  for (let j = 0; j < dims; j++) queryNorm += query[j] * query[j];
  queryNorm = Math.sqrt(queryNorm) || 1;
  const rows = vectors.length / dims;
  // The best k so far, worst first: a small sorted array is faster than a heap for k = 10.
  const best = [];
  for (let r = 0; r < rows; r++) {
    if (accept && !accept(r)) continue;
    let dot = 0;
    const base = r * dims;
    for (let j = 0; j < dims; j++) dot += vectors[base + j] * query[j];
    const score = norms[r] > 0 ? dot / (norms[r] * queryNorm) : 0;
    if (best.length === k && score <= best[0].score) continue;
    const entry = { score, row: r };
    let at = 0;
    while (at < best.length && (best[at].score < score || (best[at].score === score && best[at].row > r))) at++;
    best.splice(at, 0, entry);
    if (best.length > k) best.shift();
  }
  return best.reverse().map((e) => e.row);
}

/**
 * recall@k of one result list: the share of the true top `k` (the first `k` of `truth`) found in
 * the first `k` of `found`. Ids of any type, compared with `===`; order within the top k does not
 * count.
 */
export function recallAtK(found, truth, k) {
  const expected = new Set(truth.slice(0, k));
  if (expected.size === 0) return 1;
  let hits = 0;
  for (const id of found.slice(0, k)) if (expected.has(id)) hits++;
  return hits / expected.size;
}

/** Mean {@link recallAtK} over queries: `found[q]` against `truth[q]`. */
export function meanRecallAtK(found, truth, k) {
  if (found.length !== truth.length) throw new RangeError(`${found.length} result lists for ${truth.length} truths`);
  if (found.length === 0) return Number.NaN;
  let sum = 0;
  for (let q = 0; q < found.length; q++) sum += recallAtK(found[q], truth[q], k);
  return sum / found.length;
}

const CHUNK = 1 << 28; // bytes per read or write call (one call is limited to 2 GB)

/** Writes the vectors then the queries of a data set to `path` as raw float32 (no copy). */
export function writeDataFile(path, { vectors, queries }) {
  const fd = openSync(path, 'w');
  try {
    for (const floats of [vectors, queries]) {
      const bytes = new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
      for (let at = 0; at < bytes.length; at += CHUNK) writeSync(fd, bytes, at, Math.min(CHUNK, bytes.length - at));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a data set written by {@link writeDataFile}: `count` vectors (into `into` when given, a
 * Float32Array of count * dims floats) and `queryCount` queries of `dims` floats.
 */
export function readDataFile(path, { count, queryCount, dims, into }) {
  const vectors = into ?? new Float32Array(count * dims);
  const queries = new Float32Array(queryCount * dims);
  const fd = openSync(path, 'r');
  try {
    let position = 0;
    for (const floats of [vectors, queries]) {
      const bytes = new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
      for (let at = 0; at < bytes.length; ) {
        const read = readSync(fd, bytes, at, Math.min(CHUNK, bytes.length - at), position);
        if (read === 0) throw new RangeError(`${path} ends before ${count} + ${queryCount} vectors of ${dims} floats`);
        at += read;
        position += read;
      }
    }
  } finally {
    closeSync(fd);
  }
  return { dims, count, vectors, queries };
}
