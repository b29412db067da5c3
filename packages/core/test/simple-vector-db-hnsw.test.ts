import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryFilters, SimpleVectorDb, type MemoryFilter, type MemoryRecord } from '../src/index.js';
import { VectorIndex } from '@km/embedded-engine';
import { useTempDirs } from './helpers.js';
import { clusteredVectors } from './hnsw-fixtures.js';

const DIMS = 48;
const N = 3000;
const QUERIES = 60;

const tempDir = useTempDirs('km-hnsw-');
const opened: SimpleVectorDb[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});
const open = (options: ConstructorParameters<typeof SimpleVectorDb>[0]) => {
  const db = new SimpleVectorDb(options);
  opened.push(db);
  return db;
};

/** N clustered records then QUERIES queries from the same clusters (seeded). */
function dataset(seed: number): { vectors: Float32Array[]; queries: Float32Array[] } {
  const all = clusteredVectors(N + QUERIES, DIMS, 40, 0.12, seed);
  return { vectors: all.slice(0, N), queries: all.slice(N) };
}

const tagsOf = (i: number) => ({ band: [String(i % 5)], rare: [i % 300 === 0 ? 'yes' : 'no'] });

/** An exact index and an HNSW one with the same records (the graph built and idle). */
async function pair(seed: number, hnsw: { minRecords: number; exactBelow?: number }) {
  const { vectors, queries } = dataset(seed);
  const exact = new VectorIndex(DIMS);
  const graph = new VectorIndex(DIMS, { hnsw });
  vectors.forEach((v, i) => {
    exact.upsert(`r${i}`, v, tagsOf(i), '{}');
    graph.upsert(`r${i}`, v, tagsOf(i), '{}');
  });
  await graph.startAnn();
  await graph.annIdle();
  return { exact, graph, vectors, queries };
}

async function recallAt10(exact: VectorIndex, graph: VectorIndex, queries: Float32Array[], filters?: MemoryFilter[]) {
  let hits = 0;
  let total = 0;
  let scoreMismatches = 0;
  for (const query of queries) {
    const want = await exact.search(query, { minRelevance: -1, limit: 10, filters });
    const got = await graph.search(query, { minRelevance: -1, limit: 10, filters });
    const wantScores = new Map(want.map(([e, s]) => [e.id, s]));
    total += want.length;
    for (const [entry, score] of got) {
      if (!wantScores.has(entry.id)) continue;
      hits++;
      if (wantScores.get(entry.id) !== score) scoreMismatches++;
    }
  }
  return { recall: hits / total, scoreMismatches };
}

describe('VectorIndex with HNSW', () => {
  it('builds the graph in the background once minRecords is reached, and searches it with recall@10 >= 0.99 and exact scores', async () => {
    const { exact, graph, queries } = await pair(1, { minRecords: 500 });
    expect(graph.annStatus()).toEqual({ nodes: N, pending: 0, ready: true });
    const before = graph.annCounts.searches;
    const { recall, scoreMismatches } = await recallAt10(exact, graph, queries);
    expect(graph.annCounts.searches - before).toBe(QUERIES);
    expect(recall).toBeGreaterThanOrEqual(0.99);
    expect(scoreMismatches).toBe(0);
  });

  it('stays off below minRecords and when not configured', async () => {
    const small = new VectorIndex(DIMS, { hnsw: { minRecords: 100 } });
    const off = new VectorIndex(DIMS);
    dataset(2)
      .vectors.slice(0, 99)
      .forEach((v, i) => {
        small.upsert(`r${i}`, v, {}, '{}');
        off.upsert(`r${i}`, v, {}, '{}');
      });
    await small.startAnn();
    await off.startAnn();
    expect(small.annStatus()).toEqual({ nodes: 0, pending: 0, ready: false });
    expect(off.annStatus()).toEqual({ nodes: 0, pending: 0, ready: false });
  });

  it('applies a large filter during the graph search: only matching records, recall >= 0.95 vs the exact filtered top 10', async () => {
    const { exact, graph, queries } = await pair(3, { minRecords: 500, exactBelow: 100 });
    const twoBands = [MemoryFilters.byTag('band', '0'), MemoryFilters.byTag('band', '1')]; // either: 40%
    const before = graph.annCounts.searches;
    const { recall, scoreMismatches } = await recallAt10(exact, graph, queries, twoBands);
    expect(graph.annCounts.searches - before).toBe(QUERIES);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(scoreMismatches).toBe(0);
    for (const query of queries) {
      for (const [entry] of await graph.search(query, { minRelevance: -1, limit: 10, filters: twoBands })) {
        expect(['0', '1']).toContain(entry.tags.band![0]);
      }
    }
  });

  it('routes a filter matching fewer than exactBelow records to the exact scan (same results as the oracle)', async () => {
    const { exact, graph, queries } = await pair(4, { minRecords: 500, exactBelow: 100 });
    const rare = [MemoryFilters.byTag('rare', 'yes')]; // 10 records
    const before = graph.annCounts.searches;
    for (const query of queries) {
      const want = (await exact.search(query, { minRelevance: -1, limit: 5, filters: rare })).map(([e, s]) => [e.id, s]);
      const got = (await graph.search(query, { minRelevance: -1, limit: 5, filters: rare })).map(([e, s]) => [e.id, s]);
      expect(got).toEqual(want);
    }
    expect(graph.annCounts.searches).toBe(before);
  });

  it('applies minRelevance to the graph results', async () => {
    const { exact, graph, queries } = await pair(5, { minRecords: 500 });
    for (const query of queries.slice(0, 20)) {
      const top = await exact.search(query, { minRelevance: -1, limit: 5 });
      const min = top[4]![1];
      const got = await graph.search(query, { minRelevance: min, limit: 10 });
      expect(got.length).toBeLessThanOrEqual(5);
      for (const [, score] of got) expect(score).toBeGreaterThanOrEqual(min);
    }
  });

  it('applies upserts and deletes after the build incrementally: deleted never returned, replaced vectors found at their new place', async () => {
    const { exact, graph, vectors, queries } = await pair(6, { minRecords: 500 });
    const insertedBefore = graph.annCounts.inserted;
    const deleted = new Set<string>();
    for (let i = 0; i < N; i += 10) {
      exact.delete(`r${i}`);
      graph.delete(`r${i}`);
      deleted.add(`r${i}`);
    }
    // 200 records move onto a query's direction (slightly apart so each is the top hit of its own vector).
    const moved = new Map<string, Float32Array>();
    for (let j = 0; j < 200; j++) {
      const id = `r${j * 10 + 3}`;
      const v = Float32Array.from(queries[j % QUERIES]!, (x, d) => x + (d === j % DIMS ? 0.05 * (1 + Math.floor(j / DIMS)) : 0));
      moved.set(id, v);
      exact.upsert(id, v, tagsOf(j * 10 + 3), '{}');
      graph.upsert(id, v, tagsOf(j * 10 + 3), '{}');
    }
    const check = async () => {
      for (const [id, v] of moved) {
        const [first] = await graph.search(v, { minRelevance: -1, limit: 1 });
        expect(first![0].id).toBe(id);
      }
      for (let i = 0; i < N; i += 100) {
        for (const [entry] of await graph.search(vectors[i]!, { minRelevance: -1, limit: 10 })) expect(deleted.has(entry.id)).toBe(false);
      }
    };
    expect(graph.annStatus().pending).toBe(200); // searched as exact pending slots meanwhile
    await check();
    await graph.annIdle();
    expect(graph.annStatus()).toEqual({ nodes: N - deleted.size, pending: 0, ready: true });
    expect(graph.annCounts.inserted - insertedBefore).toBe(200); // no rebuild
    await check();
    const { recall, scoreMismatches } = await recallAt10(exact, graph, queries);
    expect(recall).toBeGreaterThanOrEqual(0.99);
    expect(scoreMismatches).toBe(0);
  });
});

describe('SimpleVectorDb with HNSW on disk', () => {
  const records = (seed: number): MemoryRecord[] =>
    dataset(seed).vectors.map((vector, i) => ({ id: `r${String(i).padStart(4, '0')}`, vector, tags: tagsOf(i), payload: { n: i } }));
  const top10 = async (db: SimpleVectorDb, query: Float32Array) => {
    const out: string[] = [];
    for await (const [record] of db.getSimilarList('docs', query, { limit: 10, minRelevance: -1 })) out.push(record.id);
    return out;
  };
  const warnings = () => {
    const seen: string[] = [];
    return { seen, logger: { debug() {}, info() {}, warn: (m: string) => void seen.push(m), error() {} } };
  };

  it('saves hnsw.graph after the build and loads it on reopen (no rebuild); log writes after the save are re-applied', async () => {
    const dir = await tempDir();
    const data = records(7);
    const first = open({ directory: dir, durable: false, hnsw: { minRecords: 500 } });
    await first.upsertBatch('docs', data);
    await first.vectorIndex('docs')!.annIdle();
    expect(await readdir(join(dir, 'docs'))).toContain('hnsw.graph');
    await first.close();

    // Another run without HNSW writes to the log only: the graph file is now behind it.
    const plain = open({ directory: dir, durable: false });
    for (let i = 0; i < 100; i++) await plain.delete('docs', { id: data[i]!.id });
    const changed = records(8)
      .slice(0, 50)
      .map((r, i) => ({ ...r, id: data[200 + i]!.id }));
    await plain.upsertBatch('docs', changed);
    await plain.close();

    const { seen, logger } = warnings();
    const reopened = open({ directory: dir, durable: false, hnsw: { minRecords: 500 }, logger });
    expect(await reopened.count('docs')).toBe(N - 100);
    const index = reopened.vectorIndex('docs')!;
    await index.annIdle();
    expect(index.annCounts.loaded).toBe(N - 100 - 50); // deleted and changed records dropped
    expect(index.annCounts.inserted).toBe(50); // only the changed ones
    expect(index.annStatus()).toEqual({ nodes: N - 100, pending: 0, ready: true });
    expect(seen).toEqual([]);

    const oracle = open({});
    await oracle.upsertBatch('docs', [...data.slice(100).filter((r) => !changed.some((c) => c.id === r.id)), ...changed]);
    let hits = 0;
    for (const query of dataset(7).queries) {
      const want = new Set(await top10(oracle, query));
      for (const id of await top10(reopened, query)) if (want.has(id)) hits++;
    }
    expect(hits / (10 * QUERIES)).toBeGreaterThanOrEqual(0.99);
    for (const c of changed) expect((await top10(reopened, c.vector as Float32Array))[0]).toBe(c.id);
  });

  it('rebuilds the graph from a corrupt hnsw.graph and logs a warning', async () => {
    const dir = await tempDir();
    const data = records(9);
    const first = open({ directory: dir, durable: false, hnsw: { minRecords: 500 } });
    await first.upsertBatch('docs', data);
    await first.vectorIndex('docs')!.annIdle();
    await first.close();
    await writeFile(join(dir, 'docs', 'hnsw.graph'), Buffer.from('KM-HNSW\0 not really a graph'));

    const { seen, logger } = warnings();
    const reopened = open({ directory: dir, durable: false, hnsw: { minRecords: 500 }, logger });
    expect(await reopened.count('docs')).toBe(N);
    const index = reopened.vectorIndex('docs')!;
    await index.annIdle();
    expect(seen.length).toBe(1);
    expect(seen[0]).toMatch(/HNSW graph file/);
    expect(index.annCounts.loaded).toBe(0);
    expect(index.annCounts.inserted).toBe(N);
    expect(index.annStatus()).toEqual({ nodes: N, pending: 0, ready: true });

    // The rebuilt graph was saved again: the next open loads it.
    await reopened.close();
    const again = open({ directory: dir, durable: false, hnsw: { minRecords: 500 }, logger });
    expect(await again.count('docs')).toBe(N);
    await again.vectorIndex('docs')!.annIdle();
    expect(again.vectorIndex('docs')!.annCounts.loaded).toBe(N);
    expect(seen.length).toBe(1);
  });

  it('takes writes made between build slices: slots queued meanwhile are inserted, deleted ones never, and a later batch after the build ran dry', async () => {
    const { vectors, queries } = dataset(7);
    const index = new VectorIndex(DIMS, { hnsw: { minRecords: 500 } });
    vectors.slice(0, 2000).forEach((v, i) => index.upsert(`r${i}`, v, tagsOf(i), '{}'));
    await index.startAnn();
    while (index.annStatus().nodes === 0) await new Promise((next) => setImmediate(next));
    // Mid-build: more records queue behind the cursor, and queued ones are deleted before their turn.
    expect(index.annStatus().pending).toBeGreaterThan(500);
    vectors.slice(2000, 2500).forEach((v, i) => index.upsert(`r${2000 + i}`, v, tagsOf(2000 + i), '{}'));
    for (let i = 1900; i < 2000; i++) index.delete(`r${i}`);
    await index.annIdle();
    expect(index.annStatus()).toEqual({ nodes: 2400, pending: 0, ready: true });
    // After the build ran dry: a new batch starts a new pass.
    vectors.slice(2500).forEach((v, i) => index.upsert(`r${2500 + i}`, v, tagsOf(2500 + i), '{}'));
    await index.startAnn();
    await index.annIdle();
    expect(index.annStatus()).toEqual({ nodes: N - 100, pending: 0, ready: true });
    const exact = new VectorIndex(DIMS);
    vectors.forEach((v, i) => {
      if (i < 1900 || i >= 2000) exact.upsert(`r${i}`, v, tagsOf(i), '{}');
    });
    const { recall, scoreMismatches } = await recallAt10(exact, index, queries);
    expect(recall).toBeGreaterThanOrEqual(0.99);
    expect(scoreMismatches).toBe(0);
  });

  it('close() during a build stops it and saves the partial graph; the next open finishes it', async () => {
    const dir = await tempDir();
    const data = records(10);
    const first = open({ directory: dir, durable: false, indexes: { docs: { hnsw: { minRecords: 500 } } } });
    await first.upsertBatch('docs', data);
    const building = first.vectorIndex('docs')!;
    while (building.annStatus().nodes === 0) await new Promise((next) => setImmediate(next));
    expect(building.annStatus().pending).toBeGreaterThan(0);
    await first.close();
    const partial = building.annStatus().nodes;
    const again = open({ directory: dir, durable: false, indexes: { docs: { hnsw: { minRecords: 500 } } } });
    expect(await again.count('docs')).toBe(N);
    const index = again.vectorIndex('docs')!;
    await index.annIdle();
    expect(index.annCounts.loaded).toBe(partial);
    expect(index.annCounts.inserted).toBe(N - partial);
    expect(index.annStatus()).toEqual({ nodes: N, pending: 0, ready: true });
  });

  it('saves the graph again once 10% of the index changed since the last save', async () => {
    const dir = await tempDir();
    const data = records(12);
    const db = open({ directory: dir, durable: false, hnsw: { minRecords: 500 } });
    await db.upsertBatch('docs', data);
    const index = db.vectorIndex('docs')!;
    await index.annIdle();
    const file = join(dir, 'docs', 'hnsw.graph');
    const saved = await readFile(file);
    for (let i = 0; i < 0.1 * N - 1; i++) await db.delete('docs', { id: data[i]!.id });
    await index.annIdle();
    expect((await readFile(file)).equals(saved)).toBe(true); // 9.9%: not yet
    await db.delete('docs', { id: data[N - 1]!.id });
    await index.annIdle();
    expect((await readFile(file)).length).toBeLessThan(saved.length);
  });

  it('rejects invalid hnsw settings', () => {
    expect(() => new SimpleVectorDb({ hnsw: { minRecords: -1 } })).toThrow(/hnsw.minRecords/);
    expect(() => new SimpleVectorDb({ indexes: { docs: { hnsw: { m: 1 } } } })).toThrow(/hnsw.m /);
  });

  it('deleting an index stops its build and removes its graph file with the folder', async () => {
    const dir = await tempDir();
    const db = open({ directory: dir, durable: false, hnsw: { minRecords: 500 } });
    await db.upsertBatch('docs', records(11));
    await db.deleteIndex('docs');
    expect(await readdir(dir)).toEqual([]);
  });
});
