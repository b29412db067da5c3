import { VECTOR_KERNELS_WASM_BASE64 } from './vector-kernels-binary.js';

/** Exports of the SIMD kernels (see vector-kernels.wat). Pointers are byte offsets. */
export interface VectorKernels {
  dot(query: number, row: number, stride: number): number;
  dots(query: number, rows: number, count: number, stride: number, out: number): void;
  /** Scores of the rows named by `count` i32 row numbers at `list` (rows from `rows`) into `out`, as `dots` scores them. */
  dotsAt(query: number, rows: number, list: number, count: number, stride: number, out: number): void;
  /** Divides `count` floats at `row` by `norm` in place, as JavaScript's `x / norm` stored as float32 would. */
  normalise(row: number, count: number, norm: number): void;
  /** Writes the int8 codes of `count` floats at `src` to `dst`; returns the scale (see int8-codes.ts). */
  encodeCodes(src: number, dst: number, count: number): number;
  /** Faults in the pages of `[start, end)` without changing any byte (run by a worker ahead of the writes). */
  touch(start: number, end: number): void;
  /** Approximate scores of int8 code rows against an int16 query (see code-segment.ts). */
  codeDots(query: number, codes: number, count: number, codeStride: number, codeBytes: number, queryScale: number, out: number): void;
}

/** The part of `WebAssembly.Memory` used here (Node's types do not declare the WebAssembly global). */
export interface WasmMemory {
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
let compiled: object | undefined;

/**
 * A new linear memory of `initial` pages that can grow to `maximum` pages (64 KiB each). It is
 * shared (its buffer is a SharedArrayBuffer), so worker threads can run the kernels over it.
 */
export function createWasmMemory(initial: number, maximum: number): WasmMemory {
  return new wasm.Memory({ initial, maximum, shared: true });
}

/** Instantiates the kernels over `memory` (the module is compiled once per process). */
export function createVectorKernels(memory: WasmMemory): VectorKernels {
  compiled ??= new wasm.Module(Buffer.from(VECTOR_KERNELS_WASM_BASE64, 'base64'));
  return new wasm.Instance(compiled, { env: { memory } }).exports as VectorKernels;
}
