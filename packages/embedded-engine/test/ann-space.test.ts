import { describe, expect, it } from 'vitest';
import { placeOf, SlotSpace } from '../src/ann-space.js';
import { VectorSegment } from '../src/vector-segment.js';
import { clusteredVectors } from './hnsw-fixtures.js';

const DIMS = 30; // not a multiple of 4: rows carry padding

describe('SlotSpace (the HNSW space of a vector index)', () => {
  it('scores slots in one segment and across segments like a plain dot product, also when the query area is reused', () => {
    const data = clusteredVectors(40, DIMS, 4, 0.2, 3);
    const segments = [new VectorSegment(DIMS), new VectorSegment(DIMS), new VectorSegment(DIMS)];
    const where: Array<{ segment: number; row: number }> = [];
    for (let slot = 0; slot < data.count; slot++) {
      const segment = slot % 3;
      where.push({ segment, row: segments[segment]!.append(data.vector(slot)) });
    }
    const places = Int32Array.from(where, ({ segment, row }) => placeOf(segment, row));
    const space = new SlotSpace(segments, () => places, DIMS);
    // Pairs in order, so the same first slot repeats (query area reused) and then changes.
    for (let a = 0; a < data.count; a++) {
      for (let b = 0; b < data.count; b++) expect(space.between(a, b)).toBeCloseTo(data.between(a, b), 5);
    }
    // A scan's query in lane 0 does not disturb the graph areas.
    for (const segment of segments) segment.setQuery(new Float32Array(DIMS).fill(1));
    expect(space.between(0, 1)).toBeCloseTo(data.between(0, 1), 5);
    expect(space.between(0, 4)).toBeCloseTo(data.between(0, 4), 5);
  });

  // One segment takes a path of its own (no grouping by segment): both must score as a scan does.
  it.each([
    ['across three segments', 3],
    ['in one segment', 1],
  ])('scores batches %s exactly as a scan scores those rows, for slot and vector queries in turn', (_, count) => {
    const data = clusteredVectors(700, DIMS, 6, 0.2, 5);
    const segments = Array.from({ length: count }, () => new VectorSegment(DIMS));
    const where: Array<{ segment: number; row: number }> = [];
    for (let slot = 0; slot < data.count; slot++) {
      const segment = (slot * 7) % count;
      where.push({ segment, row: segments[segment]!.append(data.vector(slot)) });
    }
    const places = Int32Array.from(where, ({ segment, row }) => placeOf(segment, row));
    const space = new SlotSpace(segments, () => places, DIMS);
    // every slot, shuffled, in one call: more than one graph batch, every segment touched
    const nodes = Int32Array.from({ length: data.count }, (_, i) => (i * 389) % data.count);
    const out = new Float64Array(nodes.length);
    const scanned = (vector: Float32Array, slot: number): number => {
      const { segment, row } = where[slot]!;
      segments[segment]!.setQuery(vector);
      return segments[segment]!.scoreAll()[row]!;
    };
    const vectorQuery = space.queryOfVector(data.vector(11));
    // Queries take turns in the graph areas; each batch score equals the scan's score, bit for bit.
    for (const [query, vector] of [
      [space.queryOf(3), data.vector(3)],
      [vectorQuery, data.vector(11)],
      [space.queryOf(500), data.vector(500)],
      [vectorQuery, data.vector(11)],
    ] as const) {
      query.scoreMany(nodes, nodes.length, out);
      for (let i = 0; i < nodes.length; i++) expect(out[i]).toBe(scanned(vector, nodes[i]!));
      for (const slot of [0, 1, 2, 699]) expect(query.score(slot)).toBe(scanned(vector, slot));
    }
  });
});
