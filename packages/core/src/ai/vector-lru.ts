/** Limits of a {@link VectorLru}. */
export interface VectorLruLimits {
  /** Most vectors kept. */
  maxEntries: number;
  /** Most numbers kept, summed over all vectors. */
  maxFloats: number;
}

/**
 * A least-recently-used map from keys to vectors, bounded both by the number of vectors and
 * by the numbers they hold in total. It keeps the vectors it is given as they are: callers
 * store vectors nobody else holds and copy what they hand out.
 */
export class VectorLru {
  /** Insertion order is recency order: the first key is the least recently used. */
  private readonly entries = new Map<string, Float32Array>();
  private floats = 0;
  private limits: VectorLruLimits;

  constructor(limits: VectorLruLimits) {
    this.limits = { ...limits };
  }

  /** Number of vectors kept. */
  get size(): number {
    return this.entries.size;
  }

  /** Numbers kept, over all vectors. */
  get totalFloats(): number {
    return this.floats;
  }

  /** The vector of `key`, which becomes the most recently used; undefined when not kept. */
  get(key: string): Float32Array | undefined {
    const vector = this.entries.get(key);
    if (vector === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, vector);
    return vector;
  }

  /** Keeps `vector` as the most recently used, evicting the least recently used beyond the limits. */
  set(key: string, vector: Float32Array): void {
    this.delete(key);
    if (this.limits.maxEntries < 1 || vector.length > this.limits.maxFloats) return;
    this.entries.set(key, vector);
    this.floats += vector.length;
    this.evict();
  }

  /** Forgets `key`. */
  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.floats -= old.length;
  }

  /** Changes the limits, evicting what no longer fits. */
  resize(limits: VectorLruLimits): void {
    this.limits = { ...limits };
    this.evict();
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
    this.floats = 0;
  }

  private evict(): void {
    const { maxEntries, maxFloats } = this.limits;
    while (this.entries.size > 0 && (this.entries.size > maxEntries || this.floats > maxFloats)) {
      this.delete(this.entries.keys().next().value!);
    }
  }
}
