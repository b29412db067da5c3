import { describe, expect, it } from 'vitest';
import { SlotSpace, type SlotLocation } from '../src/memory-storage/ann-space.js';
import { VectorSegment } from '../src/memory-storage/vector-segment.js';
import { clusteredVectors } from './hnsw-fixtures.js';

const DIMS = 30; // not a multiple of 4: rows carry padding

describe('SlotSpace (the HNSW space of a vector index)', () => {
  it('scores slots in one segment and across segments like a plain dot product, also when the query area is reused', () => {
    const data = clusteredVectors(40, DIMS, 4, 0.2, 3);
    const segments = [new VectorSegment(DIMS), new VectorSegment(DIMS), new VectorSegment(DIMS)];
    const where: SlotLocation[] = [];
    for (let slot = 0; slot < data.count; slot++) {
      const segment = slot % 3;
      where.push({ segment, row: segments[segment]!.append(data.vector(slot)) });
    }
    const space = new SlotSpace(segments, (slot) => where[slot]!, DIMS);
    // Pairs in order, so the same first slot repeats (query area reused) and then changes.
    for (let a = 0; a < data.count; a++) {
      for (let b = 0; b < data.count; b++) expect(space.between(a, b)).toBeCloseTo(data.between(a, b), 5);
    }
    // A search writes its own query into lane 0: after forget(), scores are right again.
    const query = new Float32Array(DIMS).fill(1);
    for (const segment of segments) segment.setQuery(query);
    space.forget();
    expect(space.between(0, 1)).toBeCloseTo(data.between(0, 1), 5);
    expect(space.between(0, 4)).toBeCloseTo(data.between(0, 4), 5);
  });
});
