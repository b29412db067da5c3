import { describe, expect, it } from 'vitest';
import { VectorIndex } from '../src/vector-index.js';

describe('VectorIndex ties at the k-th place', () => {
  it('float32 and int8 keep the same tied records, by id', async () => {
    const dims = 8;
    const base = Float32Array.from({ length: dims }, (_, i) => (i % 3) - 1 + 0.1 * i);
    const other = Float32Array.from({ length: dims }, (_, i) => (i % 2 ? 1 : -0.5));
    for (const order of ['forward', 'reverse'] as const) {
      const exact = new VectorIndex(dims);
      const int8 = new VectorIndex(dims, { quantization: 'int8' });
      const ids = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(2, '0')}`);
      const seq = order === 'forward' ? ids : [...ids].reverse();
      for (const [n, id] of seq.entries()) {
        const v = n % 5 === 0 ? other : base; // many duplicates of base
        exact.upsert(id, v, {}, '{}');
        int8.upsert(id, v, {}, '{}');
      }
      const a = (await exact.search(base, { minRelevance: -1, limit: 7 })).map(([e]) => e.id);
      const b = (await int8.search(base, { minRelevance: -1, limit: 7 })).map(([e]) => e.id);
      const dupes = seq
        .filter((_, n) => n % 5 !== 0)
        .sort()
        .slice(0, 7);
      expect(a).toEqual(dupes);
      expect(b).toEqual(dupes);
    }
  });
});
