import { compileFilter } from '../src/vector-store/filter-compiler.js';
import { defineRecord } from '../src/vector-store/record-definition.js';
import type { DistanceFunction, RecordDefinition } from '../src/vector-store/record-definition-types.js';
import type { DriverVectorQuery, StorageRecord } from '../src/vector-store/vector-store-driver.js';

/**
 * Fixtures of the SimpleVectorStore tests: a definition using every data type, a storage name
 * that differs from its property name, and one vector per distance function; records built from
 * a seeded generator; and a brute-force oracle written here (not the store's code).
 */
export const Hotel = defineRecord({
  key: 'id',
  data: {
    name: { type: 'string', filterable: true, storageName: 'hotel_name' },
    rating: { type: 'number', filterable: true },
    rooms: { type: 'integer', filterable: true, optional: true },
    open: { type: 'boolean', filterable: true },
    opened: { type: 'date', filterable: true, optional: true },
    tags: { type: 'string[]', filterable: true },
    sizes: { type: 'number[]', filterable: true, optional: true },
  },
  vectors: {
    cos: { dimensions: 4, distance: 'cosine' },
    dot: { dimensions: 4, distance: 'dot', storageName: 'dot_vec' },
    l2: { dimensions: 4, distance: 'euclidean', optional: true },
  },
});

export const CITIES = ['Paris', 'Rome', 'Oslo', 'Lima'];
export const TAGS = ['pool', 'spa', 'gym', 'bar'];

/** A seeded PRNG (mulberry32) in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A vector of `n` components in [-1, 1), rounded to quarter steps so that ties happen. */
export function vectorOf(next: () => number, n = 4): Float32Array {
  return Float32Array.from({ length: n }, () => Math.round((next() * 2 - 1) * 4) / 4);
}

/** `count` hotel records as the driver sees them (storage names); every 5th has no `l2` vector and no `rooms`. */
export function hotels(count: number, seed = 1): StorageRecord[] {
  const next = random(seed);
  const records: StorageRecord[] = [];
  for (let i = 0; i < count; i++) {
    const record: StorageRecord = {
      id: `h${String(i).padStart(4, '0')}`,
      hotel_name: CITIES[i % CITIES.length],
      rating: Math.round(next() * 50) / 10,
      rooms: i % 5 === 0 ? null : 1 + Math.floor(next() * 300),
      open: next() < 0.5,
      opened: new Date(Date.UTC(2000 + (i % 20), i % 12, 1 + (i % 28), 0, 0, 0, i % 1000)),
      tags: TAGS.filter(() => next() < 0.4),
      sizes: i % 3 === 0 ? null : [Math.floor(next() * 5), Math.floor(next() * 5)],
      cos: vectorOf(next),
      dot_vec: vectorOf(next),
    };
    if (i % 5 !== 0) record.l2 = vectorOf(next);
    records.push(record);
  }
  return records;
}

/** The vector property of the definition using `distance`. */
export function vectorProperty(distance: DistanceFunction) {
  return Hotel.vectors.find((p) => p.distance === distance)!;
}

/** A driver query for a vector search on the property of `distance`. */
export function vectorQuery(distance: DistanceFunction, vector: Float32Array, limit: number, filter?: unknown): DriverVectorQuery {
  return {
    vectorProperty: vectorProperty(distance),
    vector,
    limit,
    filter: compileFilter(Hotel as RecordDefinition<unknown>, filter),
    includeVectors: false,
  };
}

/** The score of two vectors in a distance's convention, computed independently of the store. */
export function oracleScore(distance: DistanceFunction, a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  let l2 = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
    l2 += (a[i]! - b[i]!) * (a[i]! - b[i]!);
  }
  if (distance === 'euclidean') return Math.sqrt(l2);
  if (distance === 'dot') return dot;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The expected results of a search: every record holding the vector and passing `accept`, best first, ties by key. */
export function oracleSearch(
  records: readonly StorageRecord[],
  distance: DistanceFunction,
  vector: Float32Array,
  limit: number,
  accept: (record: StorageRecord) => boolean = () => true,
): Array<[string, number]> {
  const storageName = vectorProperty(distance).storageName;
  const scored: Array<[string, number]> = [];
  for (const record of records) {
    const stored = record[storageName] as Float32Array | undefined;
    if (stored && accept(record)) scored.push([record.id as string, oracleScore(distance, vector, stored)]);
  }
  const sign = distance === 'euclidean' ? 1 : -1;
  scored.sort((a, b) => (a[1] !== b[1] ? sign * (a[1] - b[1]) : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return scored.slice(0, limit);
}
