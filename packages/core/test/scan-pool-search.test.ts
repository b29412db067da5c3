import { afterAll, describe, expect, it } from 'vitest';
import { SimpleVectorDb, type MemoryRecord } from '../src/index.js';

/** Seeded uniform numbers in [-0.5, 0.5). */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296 - 0.5;
  };
}

const vectorOf = (next: () => number, dims: number) => Array.from({ length: dims }, next);

const dbs: SimpleVectorDb[] = [];
afterAll(async () => {
  for (const db of dbs) await db.close();
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
