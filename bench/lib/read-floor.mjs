// The honest floor of a vector scan on this machine: the fastest single pass over N bytes of one
// contiguous WebAssembly memory that we can write with WASM SIMD. Every search figure is reported
// as a ratio to it (same bytes, same kind of memory: shared, like SimpleVectorDb's segments).
//
// Two kernels read every byte once; the first read() times both a few times and keeps the faster:
//   sum8: 8 independent f32x4.add accumulators, 128 bytes per iteration;
//   xor8: 4 v128.xor chains fed by pairwise xors, 128 bytes per iteration (no float latency).
//
// The module below is FLOOR_WAT compiled with wabt (simd + threads). To regenerate after editing
// the text: from packages/core (which has wabt), run
//   node -e "import('wabt').then(async ({default: f}) => { const w = await f(); const m = w.parseWat('f.wat', require('fs').readFileSync('/dev/stdin', 'utf8'), { simd: true, threads: true }); m.validate({ simd: true, threads: true }); console.log(Buffer.from(m.toBinary({}).buffer).toString('base64')) })" < floor.wat
// with the text of FLOOR_WAT saved as floor.wat, and paste the output into FLOOR_WASM_BASE64.

/* FLOOR_WAT
(module
  (import "env" "memory" (memory 1 65536 shared))
  ;; Sum of the f32 lanes of [$p, $p + $bytes) ($bytes a multiple of 128): 8 independent f32x4 accumulators.
  (func (export "sum8") (param $p i32) (param $bytes i32) (result f32)
    (local $end i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $end (i32.add (local.get $p) (local.get $bytes)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0) (v128.load (local.get $p))))
        (local.set $a1 (f32x4.add (local.get $a1) (v128.load offset=16 (local.get $p))))
        (local.set $a2 (f32x4.add (local.get $a2) (v128.load offset=32 (local.get $p))))
        (local.set $a3 (f32x4.add (local.get $a3) (v128.load offset=48 (local.get $p))))
        (local.set $a4 (f32x4.add (local.get $a4) (v128.load offset=64 (local.get $p))))
        (local.set $a5 (f32x4.add (local.get $a5) (v128.load offset=80 (local.get $p))))
        (local.set $a6 (f32x4.add (local.get $a6) (v128.load offset=96 (local.get $p))))
        (local.set $a7 (f32x4.add (local.get $a7) (v128.load offset=112 (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 128)))
        (br $l)))
    (local.set $a0 (f32x4.add (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3)))
                              (f32x4.add (f32x4.add (local.get $a4) (local.get $a5)) (f32x4.add (local.get $a6) (local.get $a7)))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
      (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
  ;; XOR of the i32 lanes of [$p, $p + $bytes) ($bytes a multiple of 128): 4 xor chains, one or, no float latency.
  (func (export "xor8") (param $p i32) (param $bytes i32) (result i32)
    (local $end i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $p) (local.get $bytes)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $a0 (v128.xor (local.get $a0) (v128.xor (v128.load (local.get $p)) (v128.load offset=16 (local.get $p)))))
        (local.set $a1 (v128.xor (local.get $a1) (v128.xor (v128.load offset=32 (local.get $p)) (v128.load offset=48 (local.get $p)))))
        (local.set $a2 (v128.xor (local.get $a2) (v128.xor (v128.load offset=64 (local.get $p)) (v128.load offset=80 (local.get $p)))))
        (local.set $a3 (v128.xor (local.get $a3) (v128.xor (v128.load offset=96 (local.get $p)) (v128.load offset=112 (local.get $p)))))
        (local.set $p (i32.add (local.get $p) (i32.const 128)))
        (br $l)))
    (local.set $a0 (v128.xor (v128.xor (local.get $a0) (local.get $a1)) (v128.xor (local.get $a2) (local.get $a3))))
    (i32.xor
      (i32.xor (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
      (i32.xor (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))
)
*/
const FLOOR_WASM_BASE64 =
  'AGFzbQEAAAABDQJgAn9/AX1gAn9/AX8CEgEDZW52Bm1lbW9yeQIDAYCABAMDAgABBw8CBHN1bTgAAAR4b3I4AAEK6gICygECAX8IeyAAIAFqIQICQANAIAAgAk8NASADIAD9AAQA/eQBIQMgBCAA/QAEEP3kASEEIAUgAP0ABCD95AEhBSAGIAD9AAQw/eQBIQYgByAA/QAEQP3kASEHIAggAP0ABFD95AEhCCAJIAD9AARg/eQBIQkgCiAA/QAEcP3kASEKIABBgAFqIQAMAAsLIAMgBP3kASAFIAb95AH95AEgByAI/eQBIAkgCv3kAf3kAf3kASEDIAP9HwAgA/0fAZIgA/0fAiAD/R8DkpILmwECAX8EeyAAIAFqIQICQANAIAAgAk8NASADIAD9AAQAIAD9AAQQ/VH9USEDIAQgAP0ABCAgAP0ABDD9Uf1RIQQgBSAA/QAEQCAA/QAEUP1R/VEhBSAGIAD9AARgIAD9AARw/VH9USEGIABBgAFqIQAMAAsLIAMgBP1RIAUgBv1R/VEhAyAD/RsAIAP9GwFzIAP9GwIgA/0bA3NzCw==';

const PAGE = 65536;
const BLOCK = 128;
let compiled;

/**
 * One contiguous shared WebAssembly memory of `bytes` bytes (filled with pseudo-random floats, so
 * every page is committed; the caller may overwrite `buffer`) and read(), one pass over all of it.
 * @param {number} bytes
 * @returns {{ buffer: Float32Array, bytes: number, read(): number, kernel(): 'sum8' | 'xor8' }}
 */
export function createReadFloor(bytes) {
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes > 2 ** 32 - PAGE) throw new RangeError(`bytes: ${bytes}`);
  const padded = Math.ceil(bytes / BLOCK) * BLOCK; // zeros past `bytes` (at most 124 bytes more)
  const pages = Math.ceil(padded / PAGE);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  compiled ??= new WebAssembly.Module(Buffer.from(FLOOR_WASM_BASE64, 'base64'));
  const { sum8, xor8 } = new WebAssembly.Instance(compiled, { env: { memory } }).exports;
  const buffer = new Float32Array(memory.buffer, 0, Math.floor(bytes / 4));
  let seed = 12345;
  for (let i = 0; i < buffer.length; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    buffer[i] = seed / 2 ** 32 - 0.5;
  }
  let chosen;
  const calibrate = () => {
    const median = (fn) => {
      const times = [];
      for (let i = 0; i < 7; i++) {
        const t = performance.now();
        fn(0, padded);
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[3];
    };
    sum8(0, padded);
    xor8(0, padded);
    chosen = median(sum8) <= median(xor8) ? 'sum8' : 'xor8';
  };
  return {
    buffer,
    bytes,
    /** One pass over every byte; returns a value that depends on all of them (so nothing is skipped). */
    read() {
      if (!chosen) calibrate();
      return chosen === 'sum8' ? sum8(0, padded) : xor8(0, padded);
    },
    /** The kernel read() uses (chosen on the first read). */
    kernel() {
      if (!chosen) calibrate();
      return chosen;
    },
  };
}
