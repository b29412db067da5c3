import { type HnswQuery, type HnswSpace, queryOfScore, seededRandom } from '@km/embedded-engine';

/** Unit vectors stored back to back, with the HNSW space and queries over them. */
export class FlatVectors implements HnswSpace {
  constructor(
    readonly data: Float32Array,
    readonly dims: number,
  ) {}

  get count(): number {
    return this.data.length / this.dims;
  }

  between(a: number, b: number): number {
    return dot(this.data, a * this.dims, this.data, b * this.dims, this.dims);
  }

  queryOf(node: number): HnswQuery {
    return queryOfScore((other) => this.between(node, other));
  }

  query(q: Float32Array): HnswQuery {
    return queryOfScore((node) => dot(q, 0, this.data, node * this.dims, this.dims));
  }

  vector(node: number): Float32Array {
    return this.data.slice(node * this.dims, (node + 1) * this.dims);
  }

  /** Exact top-k among nodes passing `keep`, best first. */
  exact(q: Float32Array, k: number, keep: (node: number) => boolean = () => true): number[] {
    const scored: Array<[number, number]> = [];
    for (let node = 0; node < this.count; node++) if (keep(node)) scored.push([node, dot(q, 0, this.data, node * this.dims, this.dims)]);
    return scored
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([node]) => node);
  }
}

function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[ao + i]! * b[bo + i]!;
  return s;
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function normalise(v: Float32Array, offset: number, dims: number): void {
  let s = 0;
  for (let i = 0; i < dims; i++) s += v[offset + i]! ** 2;
  const norm = Math.sqrt(s) || 1;
  for (let i = 0; i < dims; i++) v[offset + i] = v[offset + i]! / norm;
}

/** `n` random unit vectors (isotropic Gaussian directions). */
export function randomVectors(n: number, dims: number, seed: number): FlatVectors {
  const random = seededRandom(seed);
  const data = new Float32Array(n * dims);
  for (let i = 0; i < data.length; i++) data[i] = gaussian(random);
  for (let r = 0; r < n; r++) normalise(data, r * dims, dims);
  return new FlatVectors(data, dims);
}

/** `n` unit vectors around `clusters` random centres (noise `spread` per coordinate). */
export function clusteredVectors(n: number, dims: number, clusters: number, spread: number, seed: number): FlatVectors {
  const random = seededRandom(seed);
  const centres = new Float32Array(clusters * dims);
  for (let i = 0; i < centres.length; i++) centres[i] = gaussian(random);
  for (let c = 0; c < clusters; c++) normalise(centres, c * dims, dims);
  const data = new Float32Array(n * dims);
  for (let r = 0; r < n; r++) {
    const c = Math.floor(random() * clusters);
    for (let i = 0; i < dims; i++) data[r * dims + i] = centres[c * dims + i]! + spread * gaussian(random);
    normalise(data, r * dims, dims);
  }
  return new FlatVectors(data, dims);
}

/** Fraction of the exact results found by the approximate ones, over all queries. */
export function recall(found: number[][], exact: number[][]): number {
  let hit = 0;
  let total = 0;
  found.forEach((f, i) => {
    const want = new Set(exact[i]);
    total += want.size;
    for (const node of f) if (want.has(node)) hit++;
  });
  return total === 0 ? 1 : hit / total;
}
