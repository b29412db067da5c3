import { describe, expect, it } from 'vitest';
import { codeBytesOf, encodeRow, quantizeQuery, ROW_ERROR_STEPS } from '../src/int8-codes.js';
import { createVectorKernels, createWasmMemory } from '../src/wasm/vector-kernels.js';
import { seededUniform } from './seeded-uniform.js';

const strideOf = (dims: number) => Math.ceil(dims / 4) * 4;

/** A memory holding a query and `rows` rows of `dims` floats (zero padded to the stride), and the kernels over it. */
function floatFixture(dims: number, rows: number, seed: number) {
  const stride = strideOf(dims);
  const random = seededUniform(seed);
  const query = Array.from({ length: dims }, random);
  const data = Array.from({ length: rows }, () => Array.from({ length: dims }, random));
  const rowsOffset = stride * 4;
  const outOffset = rowsOffset + rows * stride * 4;
  const memory = createWasmMemory(Math.ceil((outOffset + rows * 4) / 65536) + 1, 1024);
  const floats = new Float32Array(memory.buffer);
  floats.set(query, 0);
  data.forEach((row, r) => floats.set(row, rowsOffset / 4 + r * stride));
  return { kernels: createVectorKernels(memory), memory, stride, query, data, rowsOffset, outOffset, floats };
}

const oracleDot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.fround(a[i]!) * Math.fround(b[i]!);
  return sum;
};

describe('float32 kernels', () => {
  for (const dims of [3, 5, 383, 384, 1536]) {
    for (const rows of [1, 3, 4, 7, 13, 66]) {
      it(`dots and dot match a plain loop, and each other bit for bit (${dims} dims, ${rows} rows)`, () => {
        const f = floatFixture(dims, rows, dims * 1000 + rows);
        f.kernels.dots(0, f.rowsOffset, rows, f.stride, f.outOffset);
        const out = new Float32Array(f.memory.buffer, f.outOffset, rows);
        for (let r = 0; r < rows; r++) {
          const expected = oracleDot(f.query, f.data[r]!);
          expect(out[r]).toBeCloseTo(expected, 4);
          expect(f.kernels.dot(0, f.rowsOffset + r * f.stride * 4, f.stride)).toBe(out[r]);
        }
      });
    }
  }

  it('dots leaves the floats after the last score untouched', () => {
    const f = floatFixture(384, 9, 1);
    f.floats[f.outOffset / 4 + 9] = 42;
    f.kernels.dots(0, f.rowsOffset, 9, f.stride, f.outOffset);
    expect(f.floats[f.outOffset / 4 + 9]).toBe(42);
  });
});

describe('int8 code kernel', () => {
  for (const dims of [3, 5, 383, 384, 1536]) {
    for (const rows of [1, 3, 4, 7, 13, 66]) {
      it(`codeDots is the int16 query . int8 codes times both scales (${dims} dims, ${rows} rows)`, () => {
        const random = seededUniform(dims * 7 + rows);
        const codeBytes = codeBytesOf(dims);
        const codeStride = codeBytes + 16;
        const unit = (v: number[]) => {
          const n = Math.hypot(...v);
          return Float32Array.from(v, (x) => x / n);
        };
        const query = quantizeQuery(unit(Array.from({ length: dims }, random)), codeBytes);
        const codesOffset = codeBytes * 2;
        const outOffset = codesOffset + rows * codeStride;
        const memory = createWasmMemory(Math.ceil((outOffset + rows * 4) / 65536) + 1, 1024);
        const bytes = new Int8Array(memory.buffer);
        const floats = new Float32Array(memory.buffer);
        new Int16Array(memory.buffer, 0, codeBytes).set(query.codes);
        const scales: number[] = [];
        for (let r = 0; r < rows; r++) {
          const start = codesOffset + r * codeStride;
          scales.push(encodeRow(unit(Array.from({ length: dims }, random)), bytes, start));
          floats[(start + codeBytes) / 4] = scales[r]!;
        }
        createVectorKernels(memory).codeDots(0, codesOffset, rows, codeStride, codeBytes, query.scale, outOffset);
        const out = new Float32Array(memory.buffer, outOffset, rows);
        for (let r = 0; r < rows; r++) {
          let dot = 0;
          for (let i = 0; i < dims; i++) dot += query.codes[i]! * bytes[codesOffset + r * codeStride + i]!;
          const expected = dot * query.scale * scales[r]!;
          expect(Math.abs(out[r]! - expected)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
        }
      });
    }
  }

  it('encodeRow keeps every value within ROW_ERROR_STEPS of its code, and rounds to the nearest code away from half steps', () => {
    const random = seededUniform(3);
    for (let round = 0; round < 200; round++) {
      const v = Float32Array.from({ length: 101 }, () => random() - 0.5);
      const codes = new Int8Array(101);
      const scale = encodeRow(v, codes, 0);
      for (let i = 0; i < v.length; i++) {
        const t = v[i]! / scale;
        expect(Math.abs(t - codes[i]!)).toBeLessThanOrEqual(ROW_ERROR_STEPS);
        // Far enough from a half step, the float32 arithmetic cannot change the rounding.
        if (Math.abs(Math.abs(t % 1) - 0.5) > 1e-4) expect(codes[i]).toBe(Math.max(-127, Math.min(127, Math.round(t))) + 0);
      }
      expect(Math.max(...Array.from(codes, Math.abs))).toBe(127);
    }
  });

  it('quantizeQuery bounds the codes so the int32 sums of long vectors cannot overflow', () => {
    const dims = 8192;
    const q = quantizeQuery(
      Float32Array.from({ length: dims }, (_, i) => (i % 2 ? 1 : -1) / Math.sqrt(dims)),
      codeBytesOf(dims),
    );
    const maxCode = Math.max(...Array.from(q.codes, Math.abs));
    expect(maxCode * 127 * codeBytesOf(dims)).toBeLessThan(2 ** 31);
  });
});

describe('row kernels', () => {
  const memory = createWasmMemory(4, 64);
  const kernels = createVectorKernels(memory);
  const floats = new Float32Array(memory.buffer);
  const bytes = new Int8Array(memory.buffer);

  it('dotsAt scores listed rows in any order, duplicates included, bit for bit as dots scores them', () => {
    for (const n of [0, 1, 3, 4, 5, 8, 9, 12, 13, 17, 33]) {
      const { kernels: k, stride, rowsOffset, outOffset, floats: f } = floatFixture(383, 40, n + 1);
      k.dots(0, rowsOffset, 40, stride, outOffset);
      const scanned = f.slice(outOffset / 4, outOffset / 4 + 40);
      const list = Array.from({ length: n }, (_, i) => (i * 17 + 5) % 40);
      if (n > 2) list[n - 1] = list[0]!;
      const listOffset = outOffset + 40 * 4;
      new Int32Array(f.buffer, listOffset, n).set(list);
      const out = listOffset + n * 4;
      k.dotsAt(0, rowsOffset, listOffset, n, stride, out);
      expect(Array.from(f.slice(out / 4, out / 4 + n))).toEqual(list.map((r) => scanned[r]));
    }
  });

  it('normalise divides in place exactly as JavaScript stores x / norm in a Float32Array', () => {
    const random = seededUniform(7);
    for (const n of [1, 3, 4, 5, 8, 11, 384]) {
      const values = Float32Array.from({ length: n }, () => (random() - 0.4) * 3);
      for (const norm of [Math.PI, 1e-30, 7, 0.3]) {
        floats.set(values, 16);
        floats[16 + n] = 42;
        kernels.normalise(64, n, norm);
        expect(floats.slice(16, 16 + n)).toEqual(Float32Array.from(values, (x) => x / norm));
        expect(floats[16 + n]).toBe(42);
      }
    }
  });

  it('encodeCodes gives the codes and scale of encodeRow, for zero vectors too', () => {
    const random = seededUniform(9);
    for (const n of [1, 3, 4, 7, 15, 16, 17, 33, 383, 384, 1536]) {
      for (const kind of ['random', 'zero', 'steps', 'halves']) {
        // 'halves': values at exactly half a step (x / scale = k + 0.5), where rounding could go either way.
        const values = Float32Array.from({ length: n }, (_, i) =>
          kind === 'zero' ? 0 : kind === 'steps' ? (i % 9) - 4 : kind === 'halves' ? (i === 0 ? 127 : (i % 21) - 10 + 0.5) : random() - 0.5,
        );
        const expected = new Int8Array(n);
        const scale = encodeRow(values, expected, 0);
        floats.set(values, 0);
        const dst = n * 4;
        bytes.fill(99, dst, dst + n + 16);
        expect(kernels.encodeCodes(0, dst, n)).toBe(scale);
        expect(bytes.slice(dst, dst + n)).toEqual(expected);
        expect(bytes.slice(dst + n, dst + n + 16)).toEqual(new Int8Array(16).fill(99));
      }
    }
  });

  it('touch leaves every byte as it was', () => {
    const random = seededUniform(11);
    const before = Float32Array.from({ length: 50_000 }, random);
    floats.set(before, 0);
    kernels.touch(3, 200_000);
    expect(floats.slice(0, 50_000)).toEqual(before);
  });
});
