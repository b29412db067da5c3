import type { HnswQuery, HnswSpace } from './hnsw/index.js';
import { GRAPH_BATCH, type VectorSegment } from './vector-segment.js';

/** Bits of a place that hold the row (segments hold at most 2^20 rows). */
const ROW_BITS = 20;
const ROW_MASK = (1 << ROW_BITS) - 1;
/** Most segments an index with HNSW can have (places are int32). */
export const MAX_PLACED_SEGMENTS = 1 << (31 - ROW_BITS);

/** Where a slot's vector lives, packed in one int32: `segment << 20 | row`. */
export function placeOf(segment: number, row: number): number {
  return (segment << ROW_BITS) | row;
}

/** The segment of a place ({@link placeOf}). */
export function segmentOfPlace(place: number): number {
  return place >>> ROW_BITS;
}

/** The row of a place ({@link placeOf}). */
export function rowOfPlace(place: number): number {
  return place & ROW_MASK;
}

/**
 * The {@link HnswSpace} of a vector index: similarities read from the segment rows through the
 * segments' graph areas (never a scan's lane). A query's vector is copied into the graph query
 * of a segment only when a batch scores rows there and the area holds another query: each area
 * remembers the query it holds by token (a slot, or a negative number per vector query). Call
 * {@link forget} whenever a write may have changed a slot's vector.
 */
export class SlotSpace implements HnswSpace {
  /** Token of the query each segment's graph area holds (missing: none known). */
  private readonly held: number[] = [];
  private nextVectorToken = -1;
  // scoreMany scratch: the segment and batch position of each node, and the segments touched
  private readonly segmentOf = new Int32Array(GRAPH_BATCH);
  private readonly positionOf = new Int32Array(GRAPH_BATCH);
  private batchCounts = new Int32Array(0);
  private readonly touched: number[] = [];

  constructor(
    private readonly segments: readonly VectorSegment[],
    /** The place ({@link placeOf}) of each live slot, indexed by slot (the current array: it may be replaced as it grows). */
    private readonly places: () => Int32Array,
    private readonly dimensions: number,
  ) {}

  /** Drops what the graph areas are known to hold (a write may have changed a held slot's vector). */
  forget(): void {
    this.held.length = 0;
  }

  between(a: number, b: number): number {
    const places = this.places();
    const at = places[a]!;
    const bt = places[b]!;
    const s = bt >>> ROW_BITS;
    const segment = this.segments[s]!;
    if (at >>> ROW_BITS === s) return segment.scoreRows(at & ROW_MASK, bt & ROW_MASK);
    if (this.held[s] !== a) this.load(s, a, undefined);
    return segment.scoreGraphRow(bt & ROW_MASK);
  }

  queryOf(node: number): HnswQuery {
    return new SlotQuery(this, node, undefined);
  }

  /** The query of a normalised vector (`dimensions` floats), valid until that vector changes. */
  queryOfVector(unit: Float32Array): HnswQuery {
    return new SlotQuery(this, this.nextVectorToken--, unit);
  }

  /** @internal Score of one slot against the query `token` (of `vector`, or of that slot). */
  scoreOne(token: number, vector: Float32Array | undefined, slot: number): number {
    const at = this.places()[slot]!;
    const s = at >>> ROW_BITS;
    if (this.held[s] !== token) this.load(s, token, vector);
    return this.segments[s]!.scoreGraphRow(at & ROW_MASK);
  }

  /** @internal Scores of `nodes[0..n)` against the query `token` into `out`, one kernel call per segment touched. */
  scoreMany(token: number, vector: Float32Array | undefined, nodes: Int32Array, n: number, out: Float64Array): void {
    for (let from = 0; from < n; from += GRAPH_BATCH) this.scoreBatch(token, vector, nodes, from, Math.min(n, from + GRAPH_BATCH), out);
  }

  private scoreBatch(
    token: number,
    vector: Float32Array | undefined,
    nodes: Int32Array,
    from: number,
    to: number,
    out: Float64Array,
  ): void {
    const segments = this.segments;
    const places = this.places();
    if (segments.length === 1) {
      // Every row in one segment (up to a million rows of 384 floats): no grouping by segment;
      // the same kernel, so the same scores bit for bit.
      const segment = segments[0]!;
      const rows = segment.graphRows;
      for (let i = from; i < to; i++) rows[i - from] = places[nodes[i]!]! & ROW_MASK;
      if (this.held[0] !== token) this.load(0, token, vector);
      segment.scoreGraphRows(to - from);
      const scores = segment.graphScores;
      for (let i = from; i < to; i++) out[i] = scores[i - from]!;
      return;
    }
    if (this.batchCounts.length < segments.length) this.batchCounts = new Int32Array(segments.length * 2);
    const counts = this.batchCounts;
    const touched = this.touched;
    for (let i = from; i < to; i++) {
      const at = places[nodes[i]!]!;
      const s = at >>> ROW_BITS;
      const c = counts[s]!;
      if (c === 0) touched.push(s);
      segments[s]!.graphRows[c] = at & ROW_MASK;
      this.segmentOf[i - from] = s;
      this.positionOf[i - from] = c;
      counts[s] = c + 1;
    }
    for (const s of touched) {
      if (this.held[s] !== token) this.load(s, token, vector);
      segments[s]!.scoreGraphRows(counts[s]!);
    }
    for (let i = from; i < to; i++) out[i] = segments[this.segmentOf[i - from]!]!.graphScores[this.positionOf[i - from]!]!;
    for (const s of touched) counts[s] = 0;
    touched.length = 0;
  }

  /** Puts the query `token` (a vector, or the vector of slot `token`) in a segment's graph area. */
  private load(segment: number, token: number, vector: Float32Array | undefined): void {
    const target = this.segments[segment]!;
    if (vector) target.setGraphQuery(vector);
    else {
      const at = this.places()[token]!;
      if (at >>> ROW_BITS === segment) target.setGraphQueryToRow(at & ROW_MASK);
      else target.setGraphQuery(this.segments[at >>> ROW_BITS]!.rowView(at & ROW_MASK, this.dimensions));
    }
    this.held[segment] = token;
  }
}

/** A query of a {@link SlotSpace}: a slot's own vector, or a given one. */
class SlotQuery implements HnswQuery {
  constructor(
    private readonly space: SlotSpace,
    private readonly token: number,
    private readonly vector: Float32Array | undefined,
  ) {}

  score(node: number): number {
    return this.space.scoreOne(this.token, this.vector, node);
  }

  scoreMany(nodes: Int32Array, n: number, out: Float64Array): void {
    this.space.scoreMany(this.token, this.vector, nodes, n, out);
  }
}
