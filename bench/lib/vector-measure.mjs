// How the vector bench measures one system (see vector-runners.mjs) on one data set: build time,
// memory per record, top-10 latency with and without the 1% filter, the results (for recall), and
// the index load time of a persisted SimpleVectorDb.
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { percentile } from './metrics.mjs';
import { GROUPS, upsertAll } from './vector-runners.mjs';
import { row } from './vector-data.mjs';

const K = 10;
const execFileAsync = promisify(execFile);
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

/** Times of the load measurement: each run in a fresh process (see load-child.mjs). */
const LOAD_RUNS = 3;
const LOAD_CHILD = fileURLToPath(new URL('./load-child.mjs', import.meta.url));

/** Runs load-child.mjs with `args` in a fresh node and returns the JSON line it printed. */
async function loadChild(args) {
  const { stdout } = await execFileAsync(process.execPath, [LOAD_CHILD, ...args], { maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop());
}

/** The files of an index folder a load reads: its base file (when there is one) and its log. */
const LOAD_FILES = ['records.base', 'records.log'];

/**
 * Index load time of a SimpleVectorDb built with `options`, in two states: `closed`, written
 * and closed as a service shuts down (the db folds its log into a base file on close, when the
 * build has base files), and `logOnly`, written without any checkpoint (`checkpoint.entries`
 * Infinity), as a process that crashed before its first one leaves it: everything replays from
 * the log. For each, the files are flushed to disk, then, each in a fresh process (median of 3):
 * `readFile` of the files the load reads (the floor: the bytes must be read anyway; from the page
 * cache), and a new SimpleVectorDb opened on the directory until `count` answers, with the first
 * search after it (which builds whatever loads lazily). A fresh process is what a service that
 * starts up has, and the same process reads a large file several times slower right after
 * building or closing an index (load-child.mjs).
 */
export async function measureLoad(core, options, data, index = 'bench') {
  const closed = await measureLoadState(core, options, options, data, index);
  const logOnly = await measureLoadState(core, { ...options, checkpoint: { entries: Number.POSITIVE_INFINITY } }, options, data, index);
  return { ...closed, logOnly };
}

/** One state of {@link measureLoad}: written with `writeOptions`, opened with `options`. */
async function measureLoadState(core, writeOptions, options, data, index) {
  const directory = await mkdtemp(join(tmpdir(), 'km-vector-bench-'));
  try {
    const writer = new core.SimpleVectorDb({ ...writeOptions, directory, durable: false });
    const writeStart = performance.now();
    await upsertAll(writer, index, data);
    const writeMs = performance.now() - writeStart;
    const closeStart = performance.now();
    await writer.close();
    const closeMs = performance.now() - closeStart;
    const files = [];
    const sizes = {};
    for (const name of LOAD_FILES) {
      const path = join(directory, index, name);
      const size = await stat(path).then(
        (s) => s.size,
        () => undefined,
      );
      if (size === undefined) continue;
      // Written back before timing: neither read competes with the write-back.
      const handle = await open(path, 'r+');
      await handle.sync();
      await handle.close();
      files.push(path);
      sizes[name] = size;
    }
    const readTimes = [];
    const openTimes = [];
    const firstSearchTimes = [];
    for (let i = 0; i < LOAD_RUNS; i++) {
      readTimes.push((await loadChild(['readfile', ...files])).ms);
      const opened = await loadChild(['open', directory, index, JSON.stringify(options), String(data.count), String(data.dims)]);
      openTimes.push(opened.ms);
      firstSearchTimes.push(opened.firstSearchMs);
    }
    const readFileMs = percentile(readTimes, 50);
    const openMs = percentile(openTimes, 50);
    const bytes = Object.values(sizes).reduce((a, b) => a + b, 0);
    return {
      writeMs,
      closeMs,
      sizes,
      bytes,
      readFileMs,
      openMs,
      firstSearchMs: percentile(firstSearchTimes, 50),
      ratio: openMs / readFileMs,
    };
  } finally {
    collectGarbage();
    await rm(directory, { recursive: true, force: true });
  }
}
