import { codeBytesOf, encodeRow, type QuantizedQuery } from './int8-codes.js';
import { createVectorKernels, createWasmMemory, type VectorKernels, type WasmMemory } from './wasm/vector-kernels.js';

const PAGE = 65536;

/**
 * The int8 codes of a {@link VectorSegment}'s rows, row for row, in their own (shared)
 * WebAssembly memory: `[query int16 | scores | code rows...]`, each code row being the codes
 * (padded to 16 bytes), then the row's float32 scale, then 12 bytes of padding.
 */
export class CodeSegment {
  readonly codeBytes: number;
  readonly codeStride: number;
  /** Rows in use (kept equal to the vector segment's). */
  count = 0;
  /** Largest row scale written since creation: bounds the approximation error of every row. */
  maxScale = 0;
  private readonly memory: WasmMemory;
  private readonly kernels: VectorKernels;
  private readonly queryOffset = 0;
  private readonly scoresOffset: number;
  private readonly codesOffset: number;
  private readonly capacity: number;
  private bytes: Int8Array;
  private floats: Float32Array;

  constructor(dimensions: number, capacity: number) {
    this.capacity = capacity;
    this.codeBytes = codeBytesOf(dimensions);
    this.codeStride = this.codeBytes + 16;
    this.scoresOffset = this.codeBytes * 2;
    this.codesOffset = align16(this.scoresOffset + capacity * 4);
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

  /** Overwrites a row's codes and scale. */
  write(row: number, vector: Float32Array): void {
    const start = this.codesOffset + row * this.codeStride;
    const scale = encodeRow(vector, this.bytes, start);
    this.bytes.fill(0, start + vector.length, start + this.codeBytes);
    this.floats[(start + this.codeBytes) >> 2] = scale;
    if (scale > this.maxScale) this.maxScale = scale;
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

  /** Approximate scores of every row against a quantised query; a view valid until the next call. */
  scoreAll(query: QuantizedQuery): Float32Array {
    new Int16Array(this.memory.buffer, this.queryOffset, this.codeBytes).set(query.codes);
    this.kernels.codeDots(this.queryOffset, this.codesOffset, this.count, this.codeStride, this.codeBytes, query.scale, this.scoresOffset);
    return new Float32Array(this.memory.buffer, this.scoresOffset, this.count);
  }

  private ensureRows(rows: number): void {
    const needed = this.codesOffset + rows * this.codeStride;
    const current = this.memory.buffer.byteLength;
    if (needed <= current) return;
    const maximum = this.codesOffset + this.capacity * this.codeStride;
    const target = Math.min(Math.max(needed, current * 2), maximum);
    this.memory.grow(Math.ceil((target - current) / PAGE));
    this.bytes = new Int8Array(this.memory.buffer);
    this.floats = new Float32Array(this.memory.buffer);
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}
