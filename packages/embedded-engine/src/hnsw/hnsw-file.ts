import { HnswGraph, type HnswOptions, type HnswSpace } from './hnsw-graph.js';

/**
 * File format of a persisted {@link HnswGraph} (little-endian, every section 4-byte aligned):
 *
 * header (40 bytes): magic "KM-HNSW\0", u32 version, u32 m, u32 nodes, u32 entry (node index,
 * 0xffffffff when empty), u32 level-0 links, u32 upper-level ints, u32 id bytes, u32 reserved;
 * then `levels` Int8[nodes], `checks` Uint32[nodes], `idLengths` Uint32[nodes] (UTF-8 bytes),
 * `level0Counts` Uint8[nodes], `level0Links` Int32[...] (node indices, node after node),
 * `upper` Int32[...] (for each node above level 0, for each level 1..L: count then links),
 * and the ids as one UTF-8 blob. Links name nodes by their index in the file, not by slot.
 */
const MAGIC = 'KM-HNSW\0';
const VERSION = 1;
const HEADER_BYTES = 40;
const NO_ENTRY = 0xffffffff;
const MAX_LEVEL = 30;

/** What {@link encodeHnswGraph} stores for a node: the record id and a check of its vector. */
export interface HnswNodeKey {
  id: string;
  /** A uint32 that changes when the vector changes (e.g. crc32 of its bytes). */
  check: number;
}

/** A graph read back by {@link decodeHnswGraph}. */
export interface DecodedHnswGraph {
  graph: HnswGraph;
  /** Nodes of the file that did not resolve (deleted or changed records), removed with repair. */
  stale: number;
}

/** Serialises a graph; `keyOf` names each node so it can be re-mapped to slots on load. */
export function encodeHnswGraph(graph: HnswGraph, keyOf: (node: number) => HnswNodeKey): Buffer {
  const capacity = graph.capacity;
  const indexOf = new Int32Array(capacity).fill(-1);
  const order: number[] = [];
  for (let node = 0; node < capacity; node++) {
    if (graph.has(node)) {
      indexOf[node] = order.length;
      order.push(node);
    }
  }
  const n = order.length;
  const levels = new Int8Array(n);
  const checks = new Uint32Array(n);
  const idLengths = new Uint32Array(n);
  const level0Counts = new Uint8Array(n);
  const ids: string[] = [];
  let level0Total = 0;
  let upperTotal = 0;
  let idBytes = 0;
  for (let i = 0; i < n; i++) {
    const node = order[i]!;
    const key = keyOf(node);
    ids.push(key.id);
    idLengths[i] = Buffer.byteLength(key.id, 'utf8');
    idBytes += idLengths[i]!;
    checks[i] = key.check >>> 0;
    const level = graph.levelOf(node);
    levels[i] = level;
    level0Total += graph.neighbors(node, 0).length;
    for (let lc = 1; lc <= level; lc++) upperTotal += 1 + graph.neighbors(node, lc).length;
  }
  const level0Links = new Int32Array(level0Total);
  const upper = new Int32Array(upperTotal);
  let at0 = 0;
  let atUpper = 0;
  for (let i = 0; i < n; i++) {
    const node = order[i]!;
    const start = at0;
    for (const other of graph.neighbors(node, 0)) {
      if (graph.has(other)) level0Links[at0++] = indexOf[other]!;
    }
    level0Counts[i] = at0 - start;
    for (let lc = 1; lc <= levels[i]!; lc++) {
      const countAt = atUpper++;
      for (const other of graph.neighbors(node, lc)) {
        if (graph.levelOf(other) >= lc) upper[atUpper++] = indexOf[other]!;
      }
      upper[countAt] = atUpper - countAt - 1;
    }
  }
  const sections = [
    padded(new Uint8Array(levels.buffer, 0, n)),
    new Uint8Array(checks.buffer),
    new Uint8Array(idLengths.buffer),
    padded(level0Counts),
    new Uint8Array(level0Links.buffer, 0, at0 * 4),
    new Uint8Array(upper.buffer, 0, atUpper * 4),
    idBlob(ids, idBytes),
  ];
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(VERSION, 8);
  header.writeUInt32LE(graph.m, 12);
  header.writeUInt32LE(n, 16);
  header.writeUInt32LE(n === 0 ? NO_ENTRY : indexOf[graph.entryPoint]!, 20);
  header.writeUInt32LE(at0, 24);
  header.writeUInt32LE(atUpper, 28);
  header.writeUInt32LE(idBytes, 32);
  return Buffer.concat([header, ...sections]);
}

/**
 * Reads a graph written by {@link encodeHnswGraph}, re-mapping each node to the slot `resolve`
 * returns for its id and check; nodes that do not resolve are removed with repair (count in
 * `stale`), so the caller inserts the records the graph then lacks. `m` comes from the file.
 * Throws an Error on a file that is not a graph of this version, truncated or inconsistent.
 */
export function decodeHnswGraph(
  bytes: Uint8Array,
  space: HnswSpace,
  resolve: (id: string, check: number) => number | undefined,
  options: HnswOptions = {},
): DecodedHnswGraph {
  if (bytes.byteOffset % 4 !== 0) bytes = new Uint8Array(bytes);
  const fail = (why: string): never => {
    throw new Error(`Not a readable HNSW graph file: ${why}`);
  };
  if (bytes.length < HEADER_BYTES) fail('shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (Buffer.from(bytes.buffer, bytes.byteOffset, 8).toString('latin1') !== MAGIC) fail('bad magic');
  const version = view.getUint32(8, true);
  if (version !== VERSION) fail(`version ${version}, expected ${VERSION}`);
  const m = view.getUint32(12, true);
  const n = view.getUint32(16, true);
  const entry = view.getUint32(20, true);
  const level0Total = view.getUint32(24, true);
  const upperTotal = view.getUint32(28, true);
  const idBytes = view.getUint32(32, true);
  if (m < 2 || m > 1024) fail(`m = ${m}`);
  const expected = HEADER_BYTES + align4(n) + 8 * n + align4(n) + 4 * level0Total + 4 * upperTotal + idBytes;
  if (bytes.length !== expected) fail(`${bytes.length} bytes, expected ${expected} (truncated or corrupt)`);
  if (n === 0 ? entry !== NO_ENTRY : entry >= n) fail('entry point out of range');

  let at = bytes.byteOffset + HEADER_BYTES;
  const levels = new Int8Array(bytes.buffer, at, n);
  at += align4(n);
  const checks = new Uint32Array(bytes.buffer, at, n);
  at += 4 * n;
  const idLengths = new Uint32Array(bytes.buffer, at, n);
  at += 4 * n;
  const level0Counts = new Uint8Array(bytes.buffer, at, n);
  at += align4(n);
  const level0Links = new Int32Array(bytes.buffer, at, level0Total);
  at += 4 * level0Total;
  const upper = new Int32Array(bytes.buffer, at, upperTotal);
  at += 4 * upperTotal;
  const ids = readIds(Buffer.from(bytes.buffer, at, idBytes), idLengths, fail);

  const slotOf = new Int32Array(n).fill(-1);
  const taken = new Set<number>();
  let maxSlot = -1;
  for (let i = 0; i < n; i++) {
    const level = levels[i]!;
    if (level < 0 || level > MAX_LEVEL) fail(`node ${i} has level ${level}`);
    const slot = resolve(ids[i]!, checks[i]!);
    if (slot === undefined) continue;
    if (!Number.isInteger(slot) || slot < 0 || slot > 0x7ffffffe) throw new RangeError(`resolve gave slot ${slot} for ${ids[i]}`);
    if (taken.has(slot)) throw new Error(`resolve gave slot ${slot} to two nodes (${ids[i]})`);
    taken.add(slot);
    slotOf[i] = slot;
    if (slot > maxSlot) maxSlot = slot;
  }
  // Unresolved nodes get placeholder slots past the real ones, carry their links while the
  // graph is assembled, then are removed with repair (their vectors are never read).
  const placeholders: number[] = [];
  for (let i = 0; i < n; i++) {
    if (slotOf[i] === -1) {
      slotOf[i] = maxSlot + 1 + placeholders.length;
      placeholders.push(slotOf[i]!);
    }
  }
  const graph = new HnswGraph(space, { ...options, m });
  graph.reserve(maxSlot + 1 + placeholders.length);
  for (let i = 0; i < n; i++) graph.place(slotOf[i]!, levels[i]!);
  const scratch = new Int32Array(2 * m);
  /** Copies `count` links from `source` into `scratch` as slots, checking them. */
  const mapLinks = (source: Int32Array, start: number, count: number, max: number, node: number): number => {
    if (count > max) fail(`node ${node} has ${count} links (max ${max})`);
    if (start + count > source.length) fail('link lists overrun their section');
    for (let j = 0; j < count; j++) {
      const other = source[start + j]!;
      if (other < 0 || other >= n) fail(`node ${node} links to ${other}`);
      scratch[j] = slotOf[other]!;
    }
    return count;
  };
  let at0 = 0;
  let atUpper = 0;
  for (let i = 0; i < n; i++) {
    const slot = slotOf[i]!;
    const count0 = level0Counts[i]!;
    graph.setNeighbors(slot, 0, scratch, mapLinks(level0Links, at0, count0, 2 * m, i));
    at0 += count0;
    for (let lc = 1; lc <= levels[i]!; lc++) {
      if (atUpper >= upper.length) fail('upper links overrun their section');
      const count = upper[atUpper++]!;
      graph.setNeighbors(slot, lc, scratch, mapLinks(upper, atUpper, count, m, i));
      atUpper += count;
    }
  }
  if (at0 !== level0Total || atUpper !== upperTotal) fail('link sections do not match the node levels');
  if (n > 0) graph.setEntryPoint(slotOf[entry]!);
  if (placeholders.length > 0) graph.removePlaceholders(placeholders);
  return { graph, stale: placeholders.length };
}

function readIds(blob: Buffer, lengths: Uint32Array, fail: (why: string) => never): string[] {
  const ids = new Array<string>(lengths.length);
  let total = 0;
  for (let i = 0; i < lengths.length; i++) total += lengths[i]!;
  if (total !== blob.length) fail('id lengths do not add up to the id blob');
  const text = blob.toString('utf8');
  const ascii = text.length === blob.length;
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    const end = at + lengths[i]!;
    ids[i] = ascii ? text.slice(at, end) : blob.toString('utf8', at, end);
    at = end;
  }
  return ids;
}

/** The ids' UTF-8 bytes back to back. */
function idBlob(ids: readonly string[], bytes: number): Buffer {
  const blob = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const id of ids) at += blob.write(id, at, 'utf8');
  return blob;
}

function align4(n: number): number {
  return Math.ceil(n / 4) * 4;
}

function padded(bytes: Uint8Array): Uint8Array {
  if (bytes.length % 4 === 0) return bytes;
  const out = new Uint8Array(align4(bytes.length));
  out.set(bytes);
  return out;
}
