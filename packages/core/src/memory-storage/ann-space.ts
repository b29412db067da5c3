import type { HnswSpace } from './hnsw/index.js';
import type { VectorSegment } from './vector-segment.js';

/** Where a slot's vector lives. */
export interface SlotLocation {
  segment: number;
  row: number;
}

/**
 * The {@link HnswSpace} of a vector index: similarity of two slots read from their segment rows.
 * Rows of one segment are scored in place; a row of another segment (a separate wasm memory) is
 * first copied into the lane-0 query area of the second one, which remembers the slot it holds
 * (the first argument repeats a lot while one node is linked). Lane 0 is also the calling-thread
 * search's query: call {@link forget} before graph work that follows a search.
 */
export class SlotSpace implements HnswSpace {
  /** Slot whose vector each segment's lane-0 query holds (-1 or missing: none known). */
  private readonly held: number[] = [];

  constructor(
    private readonly segments: readonly VectorSegment[],
    private readonly locate: (slot: number) => SlotLocation,
    private readonly dimensions: number,
  ) {}

  /** Drops what the query areas are known to hold (a search or a write may have changed them). */
  forget(): void {
    this.held.length = 0;
  }

  between(a: number, b: number): number {
    const at = this.locate(a);
    const bt = this.locate(b);
    const segment = this.segments[bt.segment]!;
    if (at.segment === bt.segment) return segment.scoreRows(at.row, bt.row);
    if (this.held[bt.segment] !== a) {
      segment.setQuery(this.segments[at.segment]!.rowView(at.row, this.dimensions), 0);
      this.held[bt.segment] = a;
    }
    return segment.scoreRow(bt.row, 0);
  }
}
