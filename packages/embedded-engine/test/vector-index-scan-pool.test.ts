import { afterAll, describe, expect, it } from 'vitest';
import { EngineError } from '../src/engine-error.js';
import { ScanPool } from '../src/scan-pool.js';
import type { TagFilter } from '../src/types.js';
import { VectorIndex, type VectorIndexOptions } from '../src/vector-index.js';

/** Seeded uniform numbers in [-0.5, 0.5). */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296 - 0.5;
  };
}

const vectorOf = (next: () => number, dims: number) => Array.from({ length: dims }, next);

const byTag = (key: string, value: string): TagFilter => ({ conditions: [{ key, value, negated: false }] });

const pools: ScanPool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.close();
});

/** Two indexes over the same seeded records: one scans on the calling thread, one on the pool. */
function twin(records: number, dims: number, extra: VectorIndexOptions, threshold = 0) {
  const pool = new ScanPool(2);
  pools.push(pool);
  const plain = new VectorIndex(dims, { ...extra });
  const pooled = new VectorIndex(dims, { ...extra, scan: { pool, threshold } });
  const next = random(11);
  for (let i = 0; i < records; i++) {
    const vector = vectorOf(next, dims);
    const tags = { parity: [i % 2 === 0 ? 'even' : 'odd'] };
    plain.upsert(`r${i}`, vector, tags, '{}');
    pooled.upsert(`r${i}`, vector, tags, '{}');
  }
  return { pool, plain, pooled };
}

const ids = (results: Array<[{ id: string }, number]>) => results.map(([e, s]) => [e.id, s]);

describe('VectorIndex with a scan pool', () => {
  // 70,000 rows in segments of 30,000: three segments, so parts of several segments are merged.
  const { pool, plain, pooled } = twin(70_000, 8, { segmentRows: 30_000 });

  it('scans on the workers above the threshold, with exactly the results of the calling thread', async () => {
    const next = random(5);
    for (let q = 0; q < 6; q++) {
      const query = vectorOf(next, 8);
      const options = { minRelevance: q % 2 === 0 ? 0 : 0.6, limit: 10 + q };
      expect(ids(await pooled.search(query, options))).toEqual(ids(await plain.search(query, options)));
    }
    // filters matching half the records still scan every row (then skip the others)
    const even = { filters: [byTag('parity', 'even')], minRelevance: 0, limit: 10 };
    const query = vectorOf(next, 8);
    expect(ids(await pooled.search(query, even))).toEqual(ids(await plain.search(query, even)));
    expect(pooled.scanCounts).toEqual({ callingThread: 0, workers: 7 });
    expect(pool.tasksRun).toBeGreaterThanOrEqual(7 * 2);
  });

  it('concurrent searches each get their own results', async () => {
    const next = random(9);
    const queries = Array.from({ length: 12 }, () => vectorOf(next, 8));
    const options = { minRelevance: 0, limit: 5 };
    const together = await Promise.all(queries.map((q) => pooled.search(q, options)));
    for (let i = 0; i < queries.length; i++) expect(ids(together[i]!)).toEqual(ids(await plain.search(queries[i]!, options)));
  });

  it('a dead worker fails the search with a transient error; the next search gets a new worker', async () => {
    const fresh = new ScanPool(1);
    pools.push(fresh);
    const index = new VectorIndex(8, { scan: { pool: fresh, threshold: 0 } });
    const next = random(3);
    for (let i = 0; i < 1000; i++) index.upsert(`r${i}`, vectorOf(next, 8), {}, '{}');
    const query = vectorOf(next, 8);
    const search = index.search(query, { minRelevance: 0, limit: 3 });
    while (fresh.liveWorkers === 0) await new Promise((resolve) => setImmediate(resolve));
    await fresh.killWorker(0); // the worker is still starting: the kill lands before it answers
    const error = await search.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).transient).toBe(true);
    const again = await index.search(query, { minRelevance: 0, limit: 3 });
    expect(again.length).toBe(3);
  });
});

describe('VectorIndex int8 with a scan pool', () => {
  it('scans the codes on the workers, with exactly the results of the calling thread', async () => {
    const { pool, plain, pooled } = twin(70_000, 8, { quantization: 'int8' });
    const next = random(8);
    for (let q = 0; q < 5; q++) {
      const query = vectorOf(next, 8);
      const options = {
        filters: q === 4 ? [byTag('parity', 'odd')] : undefined,
        minRelevance: q === 3 ? 0.7 : -1,
        limit: 10,
      };
      expect(ids(await pooled.search(query, options))).toEqual(ids(await plain.search(query, options)));
    }
    expect(pooled.scanCounts).toEqual({ callingThread: 0, workers: 5 });
    expect(pool.tasksRun).toBeGreaterThanOrEqual(5 * 2);
  });
});

describe('VectorIndex below the parallel threshold', () => {
  it('keeps the scan on the calling thread', async () => {
    const { pool, plain, pooled } = twin(2000, 8, {}, 2000 * 8 + 1);
    const query = vectorOf(random(2), 8);
    const options = { minRelevance: 0, limit: 4 };
    expect(ids(await pooled.search(query, options))).toEqual(ids(await plain.search(query, options)));
    expect(pooled.scanCounts).toEqual({ callingThread: 1, workers: 0 });
    expect(pool.tasksRun).toBe(0);
    expect(pool.liveWorkers).toBe(0);
  });
});
