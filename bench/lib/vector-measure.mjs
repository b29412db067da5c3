// How the vector bench measures one system (see vector-runners.mjs) on one data set: build time,
// memory per record, top-10 latency with and without the 1% filter, the results (for recall), and
// the index load time of a persisted SimpleVectorDb.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './metrics.mjs';
import { GROUPS, upsertAll } from './vector-runners.mjs';
import { row } from './vector-data.mjs';

const K = 10;
const WARM_UP = 3;

/** A full collection, when the process runs with --expose-gc (the bench script sets it). */
export function collectGarbage() {
  if (globalThis.gc) {
    globalThis.gc();
    globalThis.gc();
  }
}

/** process.memoryUsage() after a full collection. */
function settledMemory() {
  collectGarbage();
  return process.memoryUsage();
}

/**
 * Measures `runner` on `data`, searching the first `queryCount` queries.
 * - build: time to build the index (upserts, adds) plus the first search, which builds whatever
 *   an index builds lazily; `insertMs` is the build without that search.
 * - memory per record: growth of the process across the build (after a full collection before
 *   and after), divided by the records: `rss` (resident memory: everything, WebAssembly memories
 *   included) and `heapAndBuffers` (V8 heap used + ArrayBuffers: JavaScript objects and typed
 *   arrays; not shared WebAssembly memory).
 * - top-10 searches of every query, then the same queries filtered to 1% (tag g = query % 100).
 * - `between()` runs before each timed unfiltered search (the bench reads the floor there);
 *   `progress(done)` is called after each tenth of the build.
 */
export async function measureRunner(runner, data, { queryCount, between, progress } = {}) {
  const before = settledMemory();
  const start = performance.now();
  let state = await runner.build(data, progress);
  const insertMs = performance.now() - start;
  const queries = Array.from({ length: queryCount }, (_, q) => runner.prepareQuery(row(data.queries, data.dims, q)));
  await runner.search(state, queries[0], K);
  const buildMs = performance.now() - start;
  const after = settledMemory();
  const memory = {
    rss: (after.rss - before.rss) / data.count,
    heapAndBuffers: (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / data.count,
  };
  for (let q = 0; q < Math.min(WARM_UP, queryCount); q++) {
    await runner.search(state, queries[q], K);
    await runner.search(state, queries[q], K, q % GROUPS);
  }
  const times = [];
  const results = [];
  for (let q = 0; q < queryCount; q++) {
    between?.();
    const t = performance.now();
    results.push(await runner.search(state, queries[q], K));
    times.push(performance.now() - t);
  }
  const filteredTimes = [];
  const filteredResults = [];
  for (let q = 0; q < queryCount; q++) {
    const t = performance.now();
    filteredResults.push(await runner.search(state, queries[q], K, q % GROUPS));
    filteredTimes.push(performance.now() - t);
  }
  await runner.close(state);
  state = undefined;
  collectGarbage();
  return {
    insertMs,
    buildMs,
    memory,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    filteredP50: percentile(filteredTimes, 50),
    filteredP99: percentile(filteredTimes, 99),
    results,
    filteredResults,
  };
}

/**
 * Index load time of a SimpleVectorDb built with `options`: the index is written to a temporary
 * directory (durable: false), the db closed; then `readFile` of its records.log (median of 3; the
 * floor: the bytes must be read anyway; the file is in the page cache, just written) against opening a new SimpleVectorDb on the directory and forcing
 * the load (`count`), and the first search after it (which builds whatever loads lazily).
 */
export async function measureLoad(core, options, data, index = 'bench') {
  const directory = await mkdtemp(join(tmpdir(), 'km-vector-bench-'));
  try {
    const writer = new core.SimpleVectorDb({ ...options, directory, durable: false });
    const writeStart = performance.now();
    await upsertAll(writer, index, data);
    const writeMs = performance.now() - writeStart;
    await writer.close();
    const log = join(directory, index, 'records.log');
    const logBytes = (await stat(log)).size;
    const readTimes = [];
    for (let i = 0; i < 3; i++) {
      collectGarbage();
      const t = performance.now();
      await readFile(log);
      readTimes.push(performance.now() - t);
    }
    const readFileMs = percentile(readTimes, 50);
    collectGarbage();
    let t = performance.now();
    const reader = new core.SimpleVectorDb({ ...options, directory, durable: false });
    const count = await reader.count(index);
    const openMs = performance.now() - t;
    if (count !== data.count) throw new Error(`reopened index holds ${count} records, wrote ${data.count}`);
    t = performance.now();
    for await (const _ of reader.getSimilarList(index, row(data.queries, data.dims, 0), { limit: K, minRelevance: -1 }));
    const firstSearchMs = performance.now() - t;
    await reader.close();
    return { writeMs, logBytes, readFileMs, openMs, firstSearchMs, ratio: openMs / readFileMs };
  } finally {
    collectGarbage();
    await rm(directory, { recursive: true, force: true });
  }
}
