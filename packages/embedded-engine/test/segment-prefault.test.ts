import { afterEach, describe, expect, it } from 'vitest';
import { CodeSegment } from '../src/code-segment.js';
import { encodeRow } from '../src/int8-codes.js';
import { type Prefault, PREFAULT_MIN_BYTES, prefaultOn } from '../src/prefault.js';
import { ScanPool } from '../src/scan-pool.js';
import { VectorSegment } from '../src/vector-segment.js';
import { seededUniform } from './seeded-uniform.js';

const DIMS = 384;
const ROWS = 12_000; // 18 MB of rows: several growths past PREFAULT_MIN_BYTES

const pools: ScanPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function seededVector(seed: number): Float32Array {
  return Float32Array.from({ length: DIMS }, seededUniform(seed));
}

describe('segments faulted in ahead of their writes', () => {
  it('asks for large growths only, ahead of the rows written, and never for what was already there', () => {
    const calls: Array<[number, number]> = [];
    const record: Prefault = (_memory, start, end) => calls.push([start, end]);
    const segment = new VectorSegment(DIMS, 1, record);
    const rowBytes = segment.stride * 4;
    for (let i = 0; i < ROWS; i++) segment.append(seededVector(i));
    expect(calls.length).toBeGreaterThan(1);
    let last = 0;
    for (const [start, end] of calls) {
      expect(end - start).toBeGreaterThanOrEqual(PREFAULT_MIN_BYTES);
      expect(start).toBeGreaterThanOrEqual(last); // each range is new memory
      last = end;
    }
    expect(last).toBeGreaterThan(ROWS * rowBytes); // grown ahead of the last row written
  });

  it('rows and codes written while pool threads touch their pages read back exactly', async () => {
    const pool = new ScanPool(2);
    pools.push(pool);
    const prefault = prefaultOn(pool);
    const segment = new VectorSegment(DIMS, 1, prefault);
    const codes = new CodeSegment(DIMS, segment.capacity, 1, prefault);
    const units: Float32Array[] = [];
    for (let i = 0; i < ROWS; i++) {
      const v = seededVector(i);
      let sum = 0;
      for (const x of v) sum += x * x;
      const norm = Math.sqrt(sum);
      units.push(Float32Array.from(v, (x) => x / norm));
      const row = segment.appendNormalised(v, norm);
      codes.append(segment.rowView(row, DIMS));
    }
    // touches may still be running: they must not change a byte either way
    const expectedCodes = new Int8Array(DIMS);
    let wrongRows = 0;
    let wrongCodes = 0;
    for (let i = 0; i < ROWS; i++) {
      const row = segment.rowView(i, DIMS);
      if (row.some((x, d) => x !== units[i]![d])) wrongRows++;
      encodeRow(units[i]!, expectedCodes, 0);
      const got = codes.rowCodes(i, DIMS);
      if (got.some((c, d) => c !== expectedCodes[d])) wrongCodes++;
    }
    expect({ wrongRows, wrongCodes }).toEqual({ wrongRows: 0, wrongCodes: 0 });
  });
});
