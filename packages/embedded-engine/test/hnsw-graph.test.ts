import { describe, expect, it } from 'vitest';
import { HnswGraph } from '../src/hnsw/index.js';
import { seededRandom } from '../src/hnsw/seeded-random.js';
import { clusteredVectors, type FlatVectors, randomVectors, recall } from './hnsw-fixtures.js';

const K = 10;

function build(vectors: FlatVectors, seed = 7): HnswGraph {
  const graph = new HnswGraph(vectors, { seed });
  for (let node = 0; node < vectors.count; node++) graph.insert(node);
  return graph;
}

/** Recall@k of the graph against the exact oracle over the nodes passing `keep`. */
function measure(graph: HnswGraph, vectors: FlatVectors, queries: FlatVectors, keep?: (node: number) => boolean): number {
  const found: number[][] = [];
  const exact: number[][] = [];
  for (let q = 0; q < queries.count; q++) {
    const query = queries.vector(q);
    const hits = graph.search(vectors.query(query), K, keep ? { accept: keep } : {});
    if (keep) for (const [node] of hits) expect(keep(node)).toBe(true);
    found.push(hits.map(([node]) => node));
    exact.push(vectors.exact(query, K, keep));
  }
  return recall(found, exact);
}

describe('HnswGraph search', () => {
  const random = randomVectors(4000, 48, 1);
  const randomQueries = randomVectors(100, 48, 2);
  const clustered = clusteredVectors(4000, 64, 40, 0.15, 3);
  const clusteredQueries = clusteredVectors(100, 64, 40, 0.15, 3 + 1000);
  const randomGraph = build(random);
  const clusteredGraph = build(clustered);

  it('finds >= 99% of the exact top 10 with default parameters on random vectors', () => {
    expect(randomGraph.size).toBe(4000);
    expect(measure(randomGraph, random, randomQueries)).toBeGreaterThanOrEqual(0.99);
  });

  it('finds >= 99% of the exact top 10 with default parameters on clustered vectors', () => {
    expect(measure(clusteredGraph, clustered, clusteredQueries)).toBeGreaterThanOrEqual(0.99);
  });

  it('returns results best first with their similarities', () => {
    const query = clusteredQueries.vector(0);
    const hits = clusteredGraph.search(clustered.query(query), K);
    expect(hits).toHaveLength(K);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]![1]).toBeGreaterThanOrEqual(hits[i]![1]);
    for (const [node, score] of hits) expect(score).toBeCloseTo(clustered.query(query).score(node), 6);
  });

  it('with a filter accepting ~50% of nodes returns only accepted nodes, recall >= 0.95', () => {
    const half = (node: number) => (node * 2654435761) % 7 < 4;
    expect(measure(clusteredGraph, clustered, clusteredQueries, half)).toBeGreaterThanOrEqual(0.95);
    expect(measure(randomGraph, random, randomQueries, half)).toBeGreaterThanOrEqual(0.95);
  });

  it('with a filter accepting ~10% of nodes returns only accepted nodes, recall >= 0.95', () => {
    const tenth = (node: number) => node % 10 === 3;
    expect(measure(clusteredGraph, clustered, clusteredQueries, tenth)).toBeGreaterThanOrEqual(0.95);
    expect(measure(randomGraph, random, randomQueries, tenth)).toBeGreaterThanOrEqual(0.95);
  });

  it('returns every accepted node when fewer than k pass the filter', () => {
    const few = new Set([5, 900, 2500]);
    const hits = clusteredGraph.search(clustered.query(clusteredQueries.vector(1)), K, { accept: (n) => few.has(n) });
    expect(hits.map(([n]) => n).sort((a, b) => a - b)).toEqual([5, 900, 2500]);
  });

  it('answers an empty graph and k <= 0 with no results', () => {
    const empty = new HnswGraph(random);
    expect(empty.search(random.query(randomQueries.vector(0)), K)).toEqual([]);
    expect(randomGraph.search(random.query(randomQueries.vector(0)), 0)).toEqual([]);
  });

  it('builds the same graph and answers the same for the same seed and insert order', () => {
    const small = clusteredVectors(600, 32, 8, 0.2, 11);
    const a = build(small, 42);
    const b = build(small, 42);
    for (let node = 0; node < small.count; node++) {
      expect(b.levelOf(node)).toBe(a.levelOf(node));
      expect(Array.from(b.neighbors(node, 0))).toEqual(Array.from(a.neighbors(node, 0)));
    }
    const q = small.query(small.vector(3));
    expect(b.search(q, K)).toEqual(a.search(q, K));
  });
});

describe('HnswGraph removal', () => {
  it('after removing 30% of nodes at random, recall on the rest stays >= 0.95 and removed nodes never come back', () => {
    const vectors = clusteredVectors(4000, 48, 30, 0.15, 21);
    const queries = clusteredVectors(100, 48, 30, 0.15, 21 + 1000);
    const graph = build(vectors);
    const random = seededRandom(5);
    const removed = new Set<number>();
    while (removed.size < 1200) {
      const node = Math.floor(random() * vectors.count);
      if (removed.has(node)) continue;
      expect(graph.remove(node)).toBe(true);
      removed.add(node);
    }
    expect(graph.size).toBe(2800);
    for (const node of removed) expect(graph.has(node)).toBe(false);
    const found: number[][] = [];
    const exact: number[][] = [];
    for (let q = 0; q < queries.count; q++) {
      const query = queries.vector(q);
      const hits = graph.search(vectors.query(query), K).map(([n]) => n);
      for (const n of hits) expect(removed.has(n)).toBe(false);
      found.push(hits);
      exact.push(vectors.exact(query, K, (n) => !removed.has(n)));
    }
    expect(recall(found, exact)).toBeGreaterThanOrEqual(0.95);
    // Repair never links a node to itself.
    for (let node = 0; node < vectors.count; node++) {
      if (!graph.has(node)) continue;
      for (const other of graph.neighbors(node, 0)) expect(other).not.toBe(node);
    }
  });

  it('re-inserting removed slots (slot reuse with new vectors) treats them as new nodes', () => {
    const vectors = clusteredVectors(3000, 32, 20, 0.15, 31);
    const queries = clusteredVectors(60, 32, 20, 0.15, 31 + 1000);
    const graph = build(vectors);
    const random = seededRandom(9);
    const reused: number[] = [];
    while (reused.length < 600) {
      const node = Math.floor(random() * vectors.count);
      if (graph.remove(node)) reused.push(node);
    }
    // The slots now hold other vectors: copy vectors of other records into them.
    const replacement = randomVectors(reused.length, 32, 33);
    reused.forEach((slot, i) => vectors.data.set(replacement.vector(i), slot * 32));
    for (const slot of reused) graph.insert(slot);
    expect(graph.size).toBe(3000);
    const found: number[][] = [];
    const exact: number[][] = [];
    for (let q = 0; q < queries.count; q++) {
      const query = queries.vector(q);
      found.push(graph.search(vectors.query(query), K).map(([n]) => n));
      exact.push(vectors.exact(query, K));
    }
    expect(recall(found, exact)).toBeGreaterThanOrEqual(0.95);
    // A re-inserted node finds itself.
    for (const slot of reused.slice(0, 20)) expect(graph.search(vectors.query(vectors.vector(slot)), 1)[0]![0]).toBe(slot);
    for (const slot of reused) expect(Array.from(graph.neighbors(slot, 0))).not.toContain(slot);
  });

  it('skips links to removed nodes that were not their neighbours, and moves the entry point', () => {
    const vectors = randomVectors(500, 16, 41);
    const graph = build(vectors);
    const entry = graph.entryPoint;
    expect(graph.remove(entry)).toBe(true);
    expect(graph.entryPoint).not.toBe(entry);
    expect(graph.has(graph.entryPoint)).toBe(true);
    for (let node = 0; node < 250; node++) graph.remove(node);
    const q = vectors.vector(400);
    const hits = graph.search(vectors.query(q), 5);
    expect(hits[0]![0]).toBe(400);
    for (const [n] of hits) expect(n).toBeGreaterThanOrEqual(250);
    expect(graph.remove(3)).toBe(false);
    for (let node = 250; node < 500; node++) graph.remove(node);
    expect(graph.size).toBe(0);
    expect(graph.entryPoint).toBe(-1);
    expect(graph.search(vectors.query(q), 5)).toEqual([]);
    graph.insert(7);
    expect(graph.search(vectors.query(q), 5).map(([n]) => n)).toEqual([7]);
  });

  it('re-inserting a present node replaces it (its vector may have changed)', () => {
    const vectors = randomVectors(300, 16, 51);
    const graph = build(vectors);
    vectors.data.set(vectors.vector(10), 20 * 16);
    graph.insert(20);
    expect(graph.size).toBe(300);
    const hits = graph
      .search(vectors.query(vectors.vector(10)), 2)
      .map(([n]) => n)
      .sort((a, b) => a - b);
    expect(hits).toEqual([10, 20]);
  });
});
