import type { RowPart } from './parallel-scan.js';
import { type Prefault, PREFAULT_MIN_BYTES } from './prefault.js';
import type { ScanKernel } from './scan-pool.js';
import { createVectorKernels, createWasmMemory, type VectorKernels, type WasmMemory } from './wasm/vector-kernels.js';

const PAGE = 65536;
/**
 * Upper bound of one segment's vector bytes; larger collections use more segments. 1.5 GiB holds
 * {@link MAX_SEGMENT_ROWS} rows of 384 floats, so a million such vectors share one segment (HNSW
 * builds about 15% faster than over three: a graph batch scores its rows in one kernel call), and
 * every byte offset stays below 2^31, the int32 range the kernels' address arithmetic uses.
 * Shared memories reserve their maximum as address space only: pages commit as rows are written.
 */
const MAX_SEGMENT_BYTES = 1536 * 1024 * 1024;
/** Most rows in one segment (its place fits 20 bits: see `placeOf`). */
export const MAX_SEGMENT_ROWS = 1 << 20;
/** Most bytes a segment grows by at once (it doubles up to this step). */
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;
/** Most rows one graph batch scores ({@link VectorSegment.scoreGraphRows}). */
export const GRAPH_BATCH = 256;

/** Floats per row: the dimension rounded up to a multiple of 4, so rows stay 16-byte aligned. */
export function strideOf(dimensions: number): number {
  return Math.ceil(dimensions / 4) * 4;
}

/**
 * A block of normalised vectors stored back to back in one WebAssembly memory, scored by
 * the SIMD kernels. Layout: `[query | scores]` once per scan lane, then `[rows...]`; only the
 * rows region grows. Lane 0 serves scans on the calling thread; each in-flight worker scan
 * takes another lane (see `ScanLanes`), so concurrent scans never share a query or scores.
 * Between the lanes and the rows, the graph area `[query | row list | scores]` serves the HNSW
 * graph (see `SlotSpace`): its query is scored against listed rows, so graph work never touches
 * a scan's lane.
 */
export class VectorSegment {
  readonly stride: number;
  readonly capacity: number;
  /** Rows in use. */
  count = 0;
  /** The shared memory the rows live in (worker threads instantiate the kernels over it). */
  readonly memory: WasmMemory;
  private readonly kernels: VectorKernels;
  /** Bytes of one lane: a query, then scores for every row. */
  private readonly laneBytes: number;
  private readonly scoresOffset: number;
  private readonly rowsOffset: number;
  private readonly graphOffset: number;
  private floats: Float32Array;
  /** Row numbers a graph batch scores (a view into the memory, fixed: shared memories never detach). */
  readonly graphRows: Int32Array;
  /** Scores of the last graph batch, in the order of {@link graphRows}. */
  readonly graphScores: Float32Array;

  /**
   * `lanes`: scratch lanes (a query and scores each), 1 + the worker scans that may run at once.
   * `prefault`: with it, the memory grows ahead of the rows (by as much as they use, up to 64 MB)
   * and large growths are faulted in by it before the writes reach them. `maxRows`: fewer rows than the default
   * limit (tests use it to span several segments with few records).
   */
  constructor(
    dimensions: number,
    lanes = 1,
    private readonly prefault?: Prefault,
    maxRows = MAX_SEGMENT_ROWS,
  ) {
    this.stride = strideOf(dimensions);
    const rowBytes = this.stride * 4;
    this.capacity = Math.max(1, Math.min(maxRows, MAX_SEGMENT_ROWS, Math.floor(MAX_SEGMENT_BYTES / rowBytes)));
    this.scoresOffset = align16(rowBytes);
    this.laneBytes = align16(this.scoresOffset + this.capacity * 4);
    this.graphOffset = this.laneBytes * lanes;
    this.rowsOffset = this.graphOffset + align16(rowBytes) + GRAPH_BATCH * 8;
    const maximumPages = Math.ceil((this.rowsOffset + this.capacity * rowBytes) / PAGE);
    const initialPages = Math.min(maximumPages, Math.ceil((this.rowsOffset + 64 * rowBytes) / PAGE));
    this.memory = createWasmMemory(initialPages, maximumPages);
    this.kernels = createVectorKernels(this.memory);
    this.floats = new Float32Array(this.memory.buffer);
    const listOffset = this.graphOffset + align16(rowBytes);
    this.graphRows = new Int32Array(this.memory.buffer, listOffset, GRAPH_BATCH);
    this.graphScores = new Float32Array(this.memory.buffer, listOffset + GRAPH_BATCH * 4, GRAPH_BATCH);
  }

  /** True when no row can be added. */
  get full(): boolean {
    return this.count >= this.capacity;
  }

  /** Appends a normalised vector; returns its row. */
  append(vector: Float32Array): number {
    const row = this.count;
    this.ensureRows(row + 1);
    this.count++;
    this.write(row, vector);
    return row;
  }

  /**
   * Appends `rows` rows whose bytes (stored rows as {@link rowBytes} gives them: normalised,
   * padded to the stride) `fill` writes into the view it is given; the rows count once it resolves.
   */
  async appendRowsFrom(rows: number, fill: (view: Uint8Array) => Promise<void>): Promise<void> {
    const first = this.count;
    if (first + rows > this.capacity) throw new RangeError(`a segment holds ${this.capacity} rows, not ${first + rows}`);
    this.ensureRows(first + rows);
    const rowBytes = this.stride * 4;
    await fill(new Uint8Array(this.memory.buffer, this.rowsOffset + first * rowBytes, rows * rowBytes));
    this.count = first + rows;
  }

  /** The stored bytes of rows `0..count)`, a view of the memory (for a base file). */
  rowBytes(): Uint8Array {
    return new Uint8Array(this.memory.buffer, this.rowsOffset, this.count * this.stride * 4);
  }

  /** Overwrites a row. */
  write(row: number, vector: Float32Array): void {
    const start = (this.rowsOffset >> 2) + row * this.stride;
    this.floats.set(vector, start);
    this.floats.fill(0, start + vector.length, start + this.stride);
  }

  /**
   * Appends `vector / norm` (zeros when `norm` is 0) straight into a new row: no temporary
   * unit vector. Returns its row.
   */
  appendNormalised(vector: ArrayLike<number>, norm: number): number {
    const row = this.count;
    this.ensureRows(row + 1);
    this.count++;
    this.writeNormalised(row, vector, norm);
    return row;
  }

  /** Overwrites a row with `vector / norm` (zeros when `norm` is 0), each float as a division would give it. */
  writeNormalised(row: number, vector: ArrayLike<number>, norm: number): void {
    const start = (this.rowsOffset >> 2) + row * this.stride;
    const floats = this.floats;
    const n = vector.length;
    if (norm > 0) {
      // Copied as float32, then divided in place by the kernel (f32(f64(x) / norm), as JavaScript does).
      floats.set(vector, start);
      this.kernels.normalise(start * 4, n, norm);
    } else floats.fill(0, start, start + n);
    floats.fill(0, start + n, start + this.stride);
  }

  /** Copies the last row into `row` and drops the last row (swap-remove). Returns the moved row's old index. */
  removeBySwap(row: number): number {
    const last = this.count - 1;
    if (row !== last) {
      const base = this.rowsOffset >> 2;
      this.floats.copyWithin(base + row * this.stride, base + last * this.stride, base + (last + 1) * this.stride);
    }
    this.count--;
    return last;
  }

  /** The stored (normalised) vector of a row, `dimensions` long. */
  read(row: number, dimensions: number): Float32Array {
    const start = (this.rowsOffset >> 2) + row * this.stride;
    return this.floats.slice(start, start + dimensions);
  }

  /** The stored (normalised) vector of a row as a view into the segment, valid until the next append. */
  rowView(row: number, dimensions: number): Float32Array {
    const start = (this.rowsOffset >> 2) + row * this.stride;
    return this.floats.subarray(start, start + dimensions);
  }

  /** Similarity (dot product) of two rows of this segment. */
  scoreRows(a: number, b: number): number {
    const rowBytes = this.stride * 4;
    return this.kernels.dot(this.rowsOffset + a * rowBytes, this.rowsOffset + b * rowBytes, this.stride);
  }

  /** Sets the query of a lane, that its `scoreAll` / `scoreRow` / worker tasks compare against. */
  setQuery(query: Float32Array, lane = 0): void {
    const at = (lane * this.laneBytes) >> 2;
    this.floats.set(query, at);
    this.floats.fill(0, at + query.length, at + this.stride);
  }

  /** Scores of every row against the lane's query; a view valid until the lane's next scan. */
  scoreAll(lane = 0): Float32Array {
    const base = lane * this.laneBytes;
    this.kernels.dots(base, this.rowsOffset, this.count, this.stride, base + this.scoresOffset);
    return this.scores(lane);
  }

  /** The lane's scores of every row (written by {@link scoreAll} or by worker tasks). */
  scores(lane: number): Float32Array {
    return new Float32Array(this.memory.buffer, lane * this.laneBytes + this.scoresOffset, this.count);
  }

  /** The kernel call that scores the rows of `part` against the lane's query into the lane's scores. */
  scanTask(lane: number, part: RowPart): { kernel: ScanKernel; args: number[] } {
    const base = lane * this.laneBytes;
    const rows = this.rowsOffset + part.start * this.stride * 4;
    return { kernel: 'dots', args: [base, rows, part.count, this.stride, base + this.scoresOffset + part.start * 4] };
  }

  /** Score of one row against the lane's query. */
  scoreRow(row: number, lane = 0): number {
    return this.kernels.dot(lane * this.laneBytes, this.rowsOffset + row * this.stride * 4, this.stride);
  }

  /** Sets the graph query to a vector (`dimensions` floats, normalised). */
  setGraphQuery(vector: Float32Array): void {
    const at = this.graphOffset >> 2;
    this.floats.set(vector, at);
    this.floats.fill(0, at + vector.length, at + this.stride);
  }

  /** Sets the graph query to a row of this segment (padding included). */
  setGraphQueryToRow(row: number): void {
    const start = (this.rowsOffset >> 2) + row * this.stride;
    this.floats.copyWithin(this.graphOffset >> 2, start, start + this.stride);
  }

  /** Score of one row against the graph query. */
  scoreGraphRow(row: number): number {
    return this.kernels.dot(this.graphOffset, this.rowsOffset + row * this.stride * 4, this.stride);
  }

  /**
   * Scores the first `count` rows of {@link graphRows} (at most {@link GRAPH_BATCH}) against the
   * graph query into {@link graphScores}, bit for bit as a scan scores them.
   */
  scoreGraphRows(count: number): void {
    // Padded to a multiple of 4 with the last row: the kernel scores four rows at a time, and a
    // group of four costs about what one row alone does.
    const rows = this.graphRows;
    let n = count;
    if (n > 0) while (n % 4 !== 0) rows[n++] = rows[count - 1]!;
    const list = this.graphOffset + align16(this.stride * 4);
    this.kernels.dotsAt(this.graphOffset, this.rowsOffset, list, n, this.stride, list + GRAPH_BATCH * 4);
  }

  private ensureRows(rows: number): void {
    const needed = this.rowsOffset + rows * this.stride * 4;
    const current = this.memory.buffer.byteLength;
    const maximum = this.rowsOffset + this.capacity * this.stride * 4;
    // With prefaulting, the memory stays ahead of the rows by as many bytes as they use (at most
    // MAX_GROWTH_BYTES), so the workers fault pages in before the writer reaches them.
    const lead = this.prefault ? Math.min(needed - this.rowsOffset, MAX_GROWTH_BYTES) : 0;
    if (needed + lead <= current || (needed <= current && current >= maximum)) return;
    // The rows region doubles, by at most MAX_GROWTH_BYTES at once.
    const step = Math.min(Math.max(current - this.rowsOffset, PAGE), MAX_GROWTH_BYTES);
    const target = Math.min(Math.max(needed + lead, current + step), maximum);
    this.memory.grow(Math.ceil((target - current) / PAGE));
    this.floats = new Float32Array(this.memory.buffer);
    const grown = this.memory.buffer.byteLength;
    if (this.prefault && grown - current >= PREFAULT_MIN_BYTES) this.prefault(this.memory, current, grown);
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}
