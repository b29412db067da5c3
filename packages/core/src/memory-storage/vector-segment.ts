import { createVectorKernels, createWasmMemory, type VectorKernels, type WasmMemory } from './wasm/vector-kernels.js';

const PAGE = 65536;
/** Upper bound of one segment's vector bytes; larger collections use more segments. */
const MAX_SEGMENT_BYTES = 512 * 1024 * 1024;
/** Most rows in one segment. */
const MAX_SEGMENT_ROWS = 65536;

/** Floats per row: the dimension rounded up to a multiple of 4, so rows stay 16-byte aligned. */
export function strideOf(dimensions: number): number {
  return Math.ceil(dimensions / 4) * 4;
}

/**
 * A block of normalised vectors stored back to back in one WebAssembly memory, scored by
 * the SIMD kernels. Layout: `[query | scores | rows...]`; only the rows region grows.
 */
export class VectorSegment {
  readonly stride: number;
  readonly capacity: number;
  /** Rows in use. */
  count = 0;
  private readonly memory: WasmMemory;
  private readonly kernels: VectorKernels;
  private readonly queryOffset = 0;
  private readonly scoresOffset: number;
  private readonly rowsOffset: number;
  private floats: Float32Array;

  constructor(dimensions: number) {
    this.stride = strideOf(dimensions);
    const rowBytes = this.stride * 4;
    this.capacity = Math.max(1, Math.min(MAX_SEGMENT_ROWS, Math.floor(MAX_SEGMENT_BYTES / rowBytes)));
    this.scoresOffset = align16(rowBytes);
    this.rowsOffset = align16(this.scoresOffset + this.capacity * 4);
    const maximumPages = Math.ceil((this.rowsOffset + this.capacity * rowBytes) / PAGE);
    const initialPages = Math.min(maximumPages, Math.ceil((this.rowsOffset + 64 * rowBytes) / PAGE));
    this.memory = createWasmMemory(initialPages, maximumPages);
    this.kernels = createVectorKernels(this.memory);
    this.floats = new Float32Array(this.memory.buffer);
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

  /** Overwrites a row. */
  write(row: number, vector: Float32Array): void {
    const start = (this.rowsOffset >> 2) + row * this.stride;
    this.floats.set(vector, start);
    this.floats.fill(0, start + vector.length, start + this.stride);
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

  /** Sets the query that the next `scoreAll` / `scoreRow` calls compare against. */
  setQuery(query: Float32Array): void {
    this.floats.set(query, this.queryOffset >> 2);
    this.floats.fill(0, (this.queryOffset >> 2) + query.length, (this.queryOffset >> 2) + this.stride);
  }

  /** Scores of every row against the query; a view valid until the next call. */
  scoreAll(): Float32Array {
    this.kernels.dots(this.queryOffset, this.rowsOffset, this.count, this.stride, this.scoresOffset);
    return new Float32Array(this.memory.buffer, this.scoresOffset, this.count);
  }

  /** Score of one row against the query. */
  scoreRow(row: number): number {
    return this.kernels.dot(this.queryOffset, this.rowsOffset + row * this.stride * 4, this.stride);
  }

  /** Sum of every stored float: reads each vector once (the benchmark's bandwidth floor). */
  sumAll(): number {
    return this.kernels.sum(this.rowsOffset, this.count * this.stride - ((this.count * this.stride) % 16));
  }

  private ensureRows(rows: number): void {
    const needed = this.rowsOffset + rows * this.stride * 4;
    const current = this.memory.buffer.byteLength;
    if (needed <= current) return;
    const maximum = this.rowsOffset + this.capacity * this.stride * 4;
    const target = Math.min(Math.max(needed, current * 2), maximum);
    this.memory.grow(Math.ceil((target - current) / PAGE));
    this.floats = new Float32Array(this.memory.buffer);
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}
