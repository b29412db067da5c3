import { seededRandom } from '@km/embedded-engine';

/**
 * `n` unit vectors of `dims` around `clusters` random centres (noise `spread` per coordinate),
 * seeded: the same vectors as the engine's own HNSW test fixture gives (its `clusteredVectors`).
 */
export function clusteredVectors(n: number, dims: number, clusters: number, spread: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const unit = (v: Float32Array) => {
    const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0)) || 1;
    return v.map((x) => x / norm);
  };
  const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: dims }, gaussian)));
  return Array.from({ length: n }, () => {
    const centre = centres[Math.floor(random() * clusters)]!;
    return unit(Float32Array.from(centre, (x) => x + spread * gaussian()));
  });
}
