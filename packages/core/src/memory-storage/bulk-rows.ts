import type { CodeSegment } from './code-segment.js';
import type { ScanPool } from './scan-pool.js';
import type { VectorSegment } from './vector-segment.js';

/** Rows per job: enough that a message costs little per row, few enough that jobs overlap the load. */
const BATCH_ROWS = 1024;

/** What {@link BulkRows} finishes rows of. */
export interface BulkRowsTarget {
  readonly segments: readonly VectorSegment[];
  readonly codeSegments: readonly CodeSegment[] | undefined;
  readonly dimensions: number;
  /** Receives the norm of the record in `slot` once its row is finished. */
  setNorm(slot: number, norm: number): void;
}

/**
 * The rows of a bulk load (an index read from its log at start-up): the loading thread copies
 * each vector as given into its row and goes on decoding, while a scan thread finishes the rows
 * in batches: the norm (summed as `l2norm` sums it), the division (the `normalise` kernel) and,
 * with int8 codes, the codes and scale (the `encodeCodes` kernel), so rows, codes and norms are
 * bit for bit those `VectorIndex.upsert` writes. One batch runs at a time: a code segment has
 * one area to encode from. A batch that fails (the pool closed, its worker died) fails the load.
 */
export class BulkRows {
  private segment = -1;
  private rows: number[] = [];
  private slots: number[] = [];
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;

  constructor(
    private readonly pool: ScanPool,
    private readonly target: BulkRowsTarget,
  ) {}

  /** True while some appended row is not finished (queued or running). */
  get pending(): boolean {
    return this.rows.length > 0 || this.inFlight > 0;
  }

  /** Queues the row `row` of segment `segment`, holding the record in `slot`. */
  add(segment: number, row: number, slot: number): void {
    if (segment !== this.segment) this.flush();
    this.segment = segment;
    this.rows.push(row);
    this.slots.push(slot);
    if (this.rows.length >= BATCH_ROWS) this.flush();
  }

  /** Resolves once every row added so far is finished; rejects with the first batch's failure. */
  async drain(): Promise<void> {
    this.flush();
    await this.chain;
  }

  private flush(): void {
    if (this.rows.length === 0) return;
    const segment = this.segment;
    const rows = this.rows;
    const slots = this.slots;
    this.rows = [];
    this.slots = [];
    this.inFlight++;
    this.chain = this.chain
      .then(() => this.finish(segment, rows, slots))
      .finally(() => {
        this.inFlight--;
      });
    // Handled here so a failure waiting for drain() is no unhandled rejection; drain() still sees it.
    this.chain.catch(() => undefined);
  }

  private async finish(segmentIndex: number, rows: number[], slots: number[]): Promise<void> {
    const segment = this.target.segments[segmentIndex]!;
    const codes = this.target.codeSegments?.[segmentIndex];
    const rowsBuffer = new SharedArrayBuffer(rows.length * 4);
    new Int32Array(rowsBuffer).set(rows);
    const normsBuffer = new SharedArrayBuffer(rows.length * 8);
    const maxScale = await this.pool.finishRows({
      vectorMemory: segment.memory,
      rowsOffset: segment.rowsByteOffset,
      stride: segment.stride,
      dimensions: this.target.dimensions,
      rows: rowsBuffer,
      norms: normsBuffer,
      codes: codes?.layout,
    });
    const norms = new Float64Array(normsBuffer);
    for (let i = 0; i < slots.length; i++) this.target.setNorm(slots[i]!, norms[i]!);
    codes?.noteScale(maxScale);
  }
}
