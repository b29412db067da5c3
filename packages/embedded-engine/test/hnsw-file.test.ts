import { describe, expect, it } from 'vitest';
import { decodeHnswGraph, encodeHnswGraph, HnswGraph } from '../src/hnsw/index.js';
import { clusteredVectors, FlatVectors, recall } from './hnsw-fixtures.js';

const K = 10;
const idOf = (slot: number) => `doc-${slot}/part-é${slot % 7}`;
const checkOf = (slot: number) => (slot * 2654435761) >>> 0;

function build(vectors: FlatVectors): HnswGraph {
  const graph = new HnswGraph(vectors, { seed: 3 });
  for (let node = 0; node < vectors.count; node++) graph.insert(node);
  return graph;
}

const vectors = clusteredVectors(2000, 32, 20, 0.15, 61);
const queries = clusteredVectors(50, 32, 20, 0.15, 61 + 1000);
const graph = build(vectors);
const file = encodeHnswGraph(graph, (slot) => ({ id: idOf(slot), check: checkOf(slot) }));
const slotById = new Map(Array.from({ length: vectors.count }, (_, slot) => [idOf(slot), slot]));
const resolveAll = (id: string, check: number) => {
  const slot = slotById.get(id);
  return slot !== undefined && checkOf(slot) === check ? slot : undefined;
};

describe('HNSW graph file', () => {
  it('round trip gives the same nodes, links and search results', () => {
    const { graph: loaded, stale } = decodeHnswGraph(file, vectors, resolveAll);
    expect(stale).toBe(0);
    expect(loaded.size).toBe(graph.size);
    expect(loaded.m).toBe(graph.m);
    expect(loaded.entryPoint).toBe(graph.entryPoint);
    for (let node = 0; node < vectors.count; node++) {
      expect(loaded.levelOf(node)).toBe(graph.levelOf(node));
      for (let level = 0; level <= graph.levelOf(node); level++) {
        expect(Array.from(loaded.neighbors(node, level))).toEqual(Array.from(graph.neighbors(node, level)));
      }
    }
    for (let q = 0; q < queries.count; q++) {
      const query = vectors.query(queries.vector(q));
      expect(loaded.search(query, K)).toEqual(graph.search(query, K));
    }
  });

  it('re-maps nodes to the slots resolve returns', () => {
    // The same records now live in other slots: slot s moved to s + 5000 (vectors copied along).
    const moved = new Float32Array((vectors.count + 5000) * vectors.dims);
    for (let slot = 0; slot < vectors.count; slot++) moved.set(vectors.vector(slot), (slot + 5000) * vectors.dims);
    const movedVectors = new FlatVectors(moved, vectors.dims);
    const { graph: loaded } = decodeHnswGraph(file, movedVectors, (id, check) => {
      const slot = resolveAll(id, check);
      return slot === undefined ? undefined : slot + 5000;
    });
    expect(loaded.has(0)).toBe(false);
    expect(loaded.has(5000)).toBe(true);
    const query = queries.vector(0);
    const before = graph.search(vectors.query(query), K).map(([n]) => n + 5000);
    expect(loaded.search(movedVectors.query(query), K).map(([n]) => n)).toEqual(before);
  });

  it('drops nodes whose id is gone or whose check changed, repairs around them, and keeps recall', () => {
    const gone = new Set<number>();
    for (let slot = 0; slot < vectors.count; slot += 5) gone.add(slot); // deleted records
    const changed = new Set([1, 2, 3, 501, 1999]); // records whose vector changed
    const { graph: loaded, stale } = decodeHnswGraph(file, vectors, (id, check) => {
      const slot = resolveAll(id, check);
      if (slot === undefined || gone.has(slot)) return undefined;
      return changed.has(slot) ? resolveAll(id, check ^ 1) : slot;
    });
    expect(stale).toBe(gone.size + changed.size);
    expect(loaded.size).toBe(vectors.count - stale);
    const kept = (n: number) => !gone.has(n) && !changed.has(n);
    for (let node = 0; node < vectors.count; node++) expect(loaded.has(node)).toBe(kept(node));
    expect(kept(loaded.entryPoint)).toBe(true);
    const found: number[][] = [];
    const exact: number[][] = [];
    for (let q = 0; q < queries.count; q++) {
      const query = queries.vector(q);
      const hits = loaded.search(vectors.query(query), K).map(([n]) => n);
      for (const n of hits) expect(kept(n)).toBe(true);
      found.push(hits);
      exact.push(vectors.exact(query, K, kept));
    }
    expect(recall(found, exact)).toBeGreaterThanOrEqual(0.95);
    // The caller re-inserts changed records; they are found again.
    for (const slot of changed) loaded.insert(slot);
    expect(loaded.search(vectors.query(vectors.vector(501)), 1)[0]![0]).toBe(501);
  });

  it('round trips an empty graph', () => {
    const empty = encodeHnswGraph(new HnswGraph(vectors), () => ({ id: 'x', check: 0 }));
    const { graph: loaded, stale } = decodeHnswGraph(empty, vectors, resolveAll);
    expect([loaded.size, stale, loaded.entryPoint]).toEqual([0, 0, -1]);
  });

  it('reads a file at an unaligned offset in a larger buffer', () => {
    const shifted = Buffer.alloc(file.length + 3);
    file.copy(shifted, 3);
    const { graph: loaded } = decodeHnswGraph(shifted.subarray(3), vectors, resolveAll);
    const query = vectors.query(queries.vector(2));
    expect(loaded.search(query, K)).toEqual(graph.search(query, K));
  });

  it('rejects a truncated file, another version, a wrong magic and out-of-range links', () => {
    const decode = (bytes: Uint8Array) => decodeHnswGraph(bytes, vectors, resolveAll);
    expect(() => decode(file.subarray(0, file.length - 1))).toThrow(/truncated/);
    expect(() => decode(file.subarray(0, 20))).toThrow(/header/);
    const otherVersion = Buffer.from(file);
    otherVersion.writeUInt32LE(2, 8);
    expect(() => decode(otherVersion)).toThrow(/version 2/);
    const badMagic = Buffer.from(file);
    badMagic[0] = 0x58;
    expect(() => decode(badMagic)).toThrow(/magic/);
    // Point the first level-0 link past the node count.
    const n = file.readUInt32LE(16);
    const linksAt = 40 + Math.ceil(n / 4) * 4 + 8 * n + Math.ceil(n / 4) * 4;
    const badLink = Buffer.from(file);
    badLink.writeInt32LE(n + 10, linksAt);
    expect(() => decode(badLink)).toThrow(/links to/);
    const badLevel = Buffer.from(file);
    badLevel[40] = 99;
    expect(() => decode(badLevel)).toThrow(/level 99/);
  });

  it('rejects two nodes resolved to one slot', () => {
    expect(() => decodeHnswGraph(file, vectors, () => 1)).toThrow(/two nodes/);
  });
});
