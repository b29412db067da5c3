import { codeBytesOf, type QuantizedQuery } from './int8-codes.js';
import type { RowPart } from './parallel-scan.js';
import { type Prefault, PREFAULT_MIN_BYTES } from './prefault.js';
import type { ScanKernel } from './scan-pool.js';
import { createVectorKernels, createWasmMemory, type VectorKernels, type WasmMemory } from './wasm/vector-kernels.js';

const PAGE = 65536;

/** Bytes of one code row: the codes (padded to 16), the float32 scale, 12 bytes of padding. */
export function codeStrideOf(dimensions: number): number {
  return codeBytesOf(dimensions) + 16;
}
/** Most bytes the codes grow by at once (they double up to this step). */
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;

/**
 * The int8 codes of a {@link VectorSegment}'s rows, row for row, in their own (shared)
 * WebAssembly memory: `[query int16 | scores]` once per scan lane (as in `VectorSegment`), then
 * the floats of the row being encoded, then `[code rows...]`, each code row being the codes (padded to 16 bytes), then the row's float32
 * scale, then 12 bytes of padding.
 */
export class CodeSegment {
  readonly codeBytes: number;
  readonly codeStride: number;
  /** Rows in use (kept equal to the vector segment's). */
  count = 0;
  /** Largest row scale written since creation: bounds the approximation error of every row. */
  maxScale = 0;
  /** The shared memory the codes live in (worker threads instantiate the kernels over it). */
  readonly memory: WasmMemory;
  private readonly kernels: VectorKernels;
  /** Bytes of one lane: a query, then scores for every row. */
  private readonly laneBytes: number;
  private readonly scoresOffset: number;
  private readonly codesOffset: number;
  /** Where a row's floats are copied to be encoded. */
  private readonly encodeOffset: number;
  private readonly capacity: number;
  private bytes: Int8Array;
  private floats: Float32Array;

  /** `lanes`: scratch lanes (a query and scores each), as many as the vector segment's; `prefault` as in `VectorSegment`. */
  constructor(
    dimensions: number,
    capacity: number,
    lanes = 1,
    private readonly prefault?: Prefault,
  ) {
    this.capacity = capacity;
    this.codeBytes = codeBytesOf(dimensions);
    this.codeStride = codeStrideOf(dimensions);
    this.scoresOffset = this.codeBytes * 2;
    this.laneBytes = align16(this.scoresOffset + capacity * 4);
    this.encodeOffset = this.laneBytes * lanes;
    this.codesOffset = this.encodeOffset + this.codeBytes * 4;
    const maximumPages = Math.ceil((this.codesOffset + capacity * this.codeStride) / PAGE);
    const initialPages = Math.min(maximumPages, Math.ceil((this.codesOffset + 64 * this.codeStride) / PAGE));
    this.memory = createWasmMemory(initialPages, maximumPages);
    this.kernels = createVectorKernels(this.memory);
    this.bytes = new Int8Array(this.memory.buffer);
    this.floats = new Float32Array(this.memory.buffer);
  }

  /** Appends the codes of a unit vector; returns its row. */
  append(vector: Float32Array): number {
    const row = this.count;
    this.ensureRows(row + 1);
    this.count++;
    this.write(row, vector);
    return row;
  }

  /**
   * Appends `rows` code rows (codes, scale and padding, as {@link rowBytes} gives them) that
   * `fill` writes into the view it is given; they count (and their scales raise
   * {@link maxScale}) once it resolves.
   */
  async appendRowsFrom(rows: number, fill: (view: Uint8Array) => Promise<void>): Promise<void> {
    const first = this.count;
    if (first + rows > this.capacity) throw new RangeError(`a code segment holds ${this.capacity} rows, not ${first + rows}`);
    this.ensureRows(first + rows);
    await fill(new Uint8Array(this.memory.buffer, this.codesOffset + first * this.codeStride, rows * this.codeStride));
    const floats = this.floats;
    let maxScale = this.maxScale;
    for (let r = first; r < first + rows; r++) {
      const scale = floats[(this.codesOffset + r * this.codeStride + this.codeBytes) >> 2]!;
      if (!(scale >= 0 && scale < Number.POSITIVE_INFINITY)) throw new RangeError(`code row ${r} has scale ${scale}`);
      if (scale > maxScale) maxScale = scale;
    }
    this.maxScale = maxScale;
    this.count = first + rows;
  }

  /** The code rows `0..count)` as stored, a view of the memory (for a base file). */
  rowBytes(): Uint8Array {
    return new Uint8Array(this.memory.buffer, this.codesOffset, this.count * this.codeStride);
  }

  /** Overwrites a row's codes and scale. */
  write(row: number, vector: Float32Array): void {
    const start = this.codesOffset + row * this.codeStride;
    this.floats.set(vector, this.encodeOffset >> 2);
    const scale = this.kernels.encodeCodes(this.encodeOffset, start, vector.length);
    this.bytes.fill(0, start + vector.length, start + this.codeBytes);
    this.floats[(start + this.codeBytes) >> 2] = scale;
    if (scale > this.maxScale) this.maxScale = scale;
  }

  /** @internal A copy of a row's codes (`dimensions` of them), for tests. */
  rowCodes(row: number, dimensions = this.codeBytes): Int8Array {
    const start = this.codesOffset + row * this.codeStride;
    return this.bytes.slice(start, start + dimensions);
  }

  /** Copies the last row into `row` and drops the last row (swap-remove), as the vector segment does. */
  removeBySwap(row: number): void {
    const last = this.count - 1;
    if (row !== last) {
      const from = this.codesOffset + last * this.codeStride;
      this.bytes.copyWithin(this.codesOffset + row * this.codeStride, from, from + this.codeStride);
    }
    this.count--;
  }

  /** Approximate scores of every row against a quantised query; a view valid until the lane's next scan. */
  scoreAll(query: QuantizedQuery, lane = 0): Float32Array {
    this.setQuery(query, lane);
    const base = lane * this.laneBytes;
    this.kernels.codeDots(base, this.codesOffset, this.count, this.codeStride, this.codeBytes, query.scale, base + this.scoresOffset);
    return this.scores(lane);
  }

  /** Sets the quantised query of a lane, for worker tasks. */
  setQuery(query: QuantizedQuery, lane: number): void {
    new Int16Array(this.memory.buffer, lane * this.laneBytes, this.codeBytes).set(query.codes);
  }

  /** The kernel call that scores the rows of `part` against the lane's query into the lane's scores. */
  scanTask(lane: number, part: RowPart, query: QuantizedQuery): { kernel: ScanKernel; args: number[] } {
    const base = lane * this.laneBytes;
    const codes = this.codesOffset + part.start * this.codeStride;
    const out = base + this.scoresOffset + part.start * 4;
    return { kernel: 'codeDots', args: [base, codes, part.count, this.codeStride, this.codeBytes, query.scale, out] };
  }

  /** The lane's scores of every row (written by {@link scoreAll} or by worker tasks). */
  scores(lane: number): Float32Array {
    return new Float32Array(this.memory.buffer, lane * this.laneBytes + this.scoresOffset, this.count);
  }

  private ensureRows(rows: number): void {
    const needed = this.codesOffset + rows * this.codeStride;
    const current = this.memory.buffer.byteLength;
    const maximum = this.codesOffset + this.capacity * this.codeStride;
    // With prefaulting, the memory stays ahead of the codes as VectorSegment's does of its rows.
    const lead = this.prefault ? Math.min(needed - this.codesOffset, MAX_GROWTH_BYTES) : 0;
    if (needed + lead <= current || (needed <= current && current >= maximum)) return;
    // The codes region doubles, by at most MAX_GROWTH_BYTES at once.
    const step = Math.min(Math.max(current - this.codesOffset, PAGE), MAX_GROWTH_BYTES);
    const target = Math.min(Math.max(needed + lead, current + step), maximum);
    this.memory.grow(Math.ceil((target - current) / PAGE));
    this.bytes = new Int8Array(this.memory.buffer);
    this.floats = new Float32Array(this.memory.buffer);
    const grown = this.memory.buffer.byteLength;
    if (this.prefault && grown - current >= PREFAULT_MIN_BYTES) this.prefault(this.memory, current, grown);
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}
