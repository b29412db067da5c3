import { afterAll, describe, expect, it } from 'vitest';
import { EngineError, ScanPool, VectorIndex, type VectorIndexOptions } from '@km/embedded-engine';
import { MemoryFilters, SimpleVectorDb, type MemoryRecord } from '../src/index.js';

/** Seeded uniform numbers in [-0.5, 0.5). */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296 - 0.5;
  };
}

const vectorOf = (next: () => number, dims: number) => Array.from({ length: dims }, next);

const pools: ScanPool[] = [];
const dbs: SimpleVectorDb[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.close();
  for (const db of dbs) await db.close();
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
    const even = { filters: [MemoryFilters.byTag('parity', 'even')], minRelevance: 0, limit: 10 };
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
        filters: q === 4 ? [MemoryFilters.byTag('parity', 'odd')] : undefined,
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

describe('SimpleVectorDb with scan threads', () => {
  const DIMS = 16;

  /** Records by id, with exact top-k by cosine (float64) as the oracle. */
  class Model {
    readonly records = new Map<string, number[]>();
    clone(): Model {
      const m = new Model();
      for (const [id, v] of this.records) m.records.set(id, v);
      return m;
    }
    /** Whether `results` are a top-`limit` of this state: scores within 1e-5 (ties may swap). */
    accepts(query: number[], results: Array<[MemoryRecord, number]>, limit: number): boolean {
      const q = unit(query);
      const scored = [...this.records].map(([id, v]): [string, number] => [id, dot(q, unit(v))]).filter(([, s]) => s >= 0);
      scored.sort((a, b) => b[1] - a[1]);
      const expected = scored.slice(0, limit);
      if (expected.length !== results.length) return false;
      const byId = new Map(scored);
      return results.every(([record, score], i) => {
        const exact = byId.get(record.id);
        return exact !== undefined && Math.abs(exact - score) < 1e-5 && Math.abs(expected[i]![1] - score) < 1e-5;
      });
    }
  }
  const unit = (v: number[]) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  const record = (id: string, vector: number[]): MemoryRecord => ({ id, vector, tags: {}, payload: {} });

  it('searches running during upserts and deletes always return the exact top-k of one consistent state', async () => {
    const db = new SimpleVectorDb({ scanThreads: 2, parallelScanThreshold: 0 });
    dbs.push(db);
    const next = random(21);
    const model = new Model();
    const initial: MemoryRecord[] = [];
    for (let i = 0; i < 4000; i++) {
      const v = vectorOf(next, DIMS);
      model.records.set(`r${i}`, v);
      initial.push(record(`r${i}`, v));
    }
    await db.upsertBatch('mixed', initial);
    const index = db.vectorIndex('mixed')!;
    const states = [model.clone()];
    let nextId = 4000;
    const searches: Array<Promise<{ query: number[]; results: Array<[MemoryRecord, number]>; from: number; to: number }>> = [];
    const search = (query: number[]) => {
      const from = states.length - 1; // every write acknowledged so far is applied
      searches.push(
        (async () => {
          const results: Array<[MemoryRecord, number]> = [];
          for await (const hit of db.getSimilarList('mixed', query, { mode: 'vector', limit: 10 })) results.push(hit);
          // the write running now (state number states.length) may already be applied
          return { query, results, from, to: states.length };
        })(),
      );
    };
    for (let op = 0; op < 60; op++) {
      const ids = [...model.records.keys()];
      const target = ids[Math.floor((next() + 0.5) * ids.length)]!;
      // queries aimed at the record this write touches, so a torn scan would show in the top results
      const near = model.records.get(target)!.map((x) => x + next() * 0.01);
      for (let k = 0; k < 3; k++) search(near);
      // once these searches are scanning on the workers, the write below lands in the middle of their scans
      while (index.scanCounts.workers < searches.length) await new Promise((resolve) => setImmediate(resolve));
      if (op % 3 === 0) {
        model.records.delete(target);
        await db.delete('mixed', { id: target });
      } else if (op % 3 === 1) {
        const v = vectorOf(next, DIMS);
        model.records.set(target, v);
        await db.upsert('mixed', record(target, v));
      } else {
        const id = `r${nextId++}`;
        const v = vectorOf(next, DIMS);
        model.records.set(id, v);
        await db.upsert('mixed', record(id, v));
      }
      states.push(model.clone());
      search(near);
    }
    let failures = 0;
    for (const { query, results, from, to } of await Promise.all(searches)) {
      if (!states.slice(from, to + 1).some((state) => state.accepts(query, results, 10))) failures++;
    }
    expect(failures).toBe(0);
    expect(index.scanCounts.workers).toBe(searches.length);
  });

  it('scanThreads 0 scans on the calling thread', async () => {
    const db = new SimpleVectorDb({ scanThreads: 0, parallelScanThreshold: 0 });
    dbs.push(db);
    await db.upsert('zero', record('a', [1, 0, 0]));
    const hits: string[] = [];
    for await (const [r] of db.getSimilarList('zero', [1, 0, 0], { mode: 'vector' })) hits.push(r.id);
    expect(hits).toEqual(['a']);
    expect(db.vectorIndex('zero')!.scanCounts).toEqual({ callingThread: 1, workers: 0 });
  });

  it('close stops the scan threads', async () => {
    const db = new SimpleVectorDb({ scanThreads: 2, parallelScanThreshold: 0 });
    await db.upsert('closing', record('a', [1, 0, 0]));
    for await (const _ of db.getSimilarList('closing', [1, 0, 0], { mode: 'vector' })) void _;
    const pool = db.vectorIndex('closing')!.scanPool!;
    expect(pool.liveWorkers).toBeGreaterThan(0);
    await db.close();
    expect(pool.liveWorkers).toBe(0);
  });
});
