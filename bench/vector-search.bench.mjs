// SimpleVectorDb search on seeded 384-dimension data (issue 19), per size (BENCH_SIZES, default
// 100000,1000000) and data set (random: uniform in [-0.5, 0.5)^dims; clustered: 1000 centres plus
// gaussian noise, queries drawn the same way), against the honest floor measured in the same run:
// one WASM SIMD pass over the same N x dims float32 bytes in one contiguous memory
// (lib/read-floor.mjs). Configurations: float32 exact (default), int8 + rescore, 2-thread scan and
// HNSW; a configuration whose option this @km/core build lacks prints `n/a (<why>)`. Peers on the
// same data: LangChain's MemoryVectorStore and hnswlib-node (same M / efConstruction / ef as km's
// HNSW). Each system is measured in a child process of its own (lib/vector-job.mjs) on the data
// this process generated once and wrote to a temporary file, so memory per record is its own.
// Prints one `name value unit` line per figure (stdout; progress on stderr), then tables.
// Run with `pnpm --filter @km/bench bench:vectors` after `pnpm --filter @km/core build`; see
// bench/README.md for the environment variables.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@km/core';
import { declaredSimpleVectorDbOptions, loadHnswlib, whyUnavailable } from './lib/km-vector-options.mjs';
import { percentile } from './lib/metrics.mjs';
import { DATA_SETS, generateDataSet, meanRecallAtK, writeDataFile } from './lib/vector-data.mjs';
import { runJobInChild } from './lib/vector-job.mjs';
import { collectGarbage } from './lib/vector-measure.mjs';

const list = (value, fallback) =>
  (value ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const SIZES = list(process.env.BENCH_SIZES, '100000,1000000').map(Number);
const DIMS = Number(process.env.BENCH_DIMS ?? 384);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100);
const DATA = list(process.env.BENCH_DATASETS, DATA_SETS.join(','));
const CONFIGS = list(process.env.BENCH_CONFIGS, 'float32,int8,threads2,default,hnsw');
const PEERS = list(process.env.BENCH_PEERS, 'langchain,hnswlib');
const LOAD_CONFIGS = list(process.env.BENCH_LOAD_CONFIGS, 'float32,int8');
const langchainQueries = (n) => Number(process.env.BENCH_LANGCHAIN_QUERIES ?? (n > 200_000 ? 3 : 10));
const ORACLE_CHECKS = Number(process.env.BENCH_ORACLE_CHECKS ?? 3);
const HNSW = {
  m: Number(process.env.BENCH_HNSW_M ?? 16),
  efConstruction: Number(process.env.BENCH_HNSW_EF_CONSTRUCTION ?? 200),
  efSearch: Number(process.env.BENCH_HNSW_EF_SEARCH ?? 128),
};
const JOB_TIMEOUT_MINUTES = Number(process.env.BENCH_JOB_TIMEOUT_MINUTES ?? 240);
const HNSW_MIN_RECORDS = Number(process.env.BENCH_HNSW_MIN_RECORDS ?? 1000);

const KM_CONFIGS = [
  // Every configuration says how it scans: the defaults (int8, 2 threads above ~87k x 384) would
  // otherwise blur the single-thread figures the floor is compared with.
  { key: 'float32', label: 'km float32 exact, 1 thread', options: { quantization: 'none', scanThreads: 0 } },
  { key: 'int8', label: 'km int8 + rescore, 1 thread', options: { quantization: 'int8', scanThreads: 0 } },
  { key: 'threads2', label: 'km float32, 2-thread scan', options: { quantization: 'none', scanThreads: 2 } },
  { key: 'default', label: 'km default (int8 + rescore, 2 threads)', options: {} },
  {
    key: 'hnsw',
    label: `km HNSW (M ${HNSW.m}, efC ${HNSW.efConstruction}, ef ${HNSW.efSearch})`,
    options: { quantization: 'none', scanThreads: 0, hnsw: { minRecords: HNSW_MIN_RECORDS, ...HNSW } },
  },
].filter((c) => c.key === 'float32' || CONFIGS.includes(c.key));

const format = (value) => (typeof value === 'number' ? (Number.isFinite(value) ? +value.toPrecision(4) : String(value)) : value);
const print = (name, value, unit) => console.log(`${name} ${format(value)} ${unit}`);
const notAvailable = (name, why) => console.log(`${name} n/a (${why})`);
const progress = (message) => process.stderr.write(`[vector-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const declared = await declaredSimpleVectorDbOptions();
const unavailable = new Map();
for (const config of KM_CONFIGS) {
  const why = await whyUnavailable(core, config.options, declared);
  if (why) unavailable.set(config.key, why);
}
const hnswlib = PEERS.includes('hnswlib') ? await loadHnswlib() : { why: 'not in BENCH_PEERS' };

print('dimensions', DIMS, 'floats');
print('queries', QUERIES, 'per configuration');
print('cpus', cpus().length, `x ${cpus()[0]?.model ?? '?'}`);

const tables = [];
const loadRows = [];
const scratch = await mkdtemp(join(tmpdir(), 'km-vector-bench-data-'));
const run = async (job) => {
  try {
    return await runJobInChild(job, { timeoutMs: JOB_TIMEOUT_MINUTES * 60_000 });
  } catch (error) {
    return { error: error.message.split('\n')[0] };
  }
};

try {
  for (const count of SIZES) {
    for (const kind of DATA) {
      const at = `${kind}_${count}`;
      const rows = [];
      progress(`${at}: generating data`);
      const file = join(scratch, `${at}.f32`);
      writeDataFile(file, generateDataSet({ kind, count, queryCount: QUERIES, dims: DIMS }));
      collectGarbage();
      const base = { file, count, queryCount: QUERIES, dims: DIMS };

      // float32 exact first, in the floor's memory with a floor read before each search: its
      // results are the truth the other configurations' recall is measured against.
      progress(`${at}: ${KM_CONFIGS[0].label}`);
      const exact = await run({
        ...base,
        system: 'km',
        label: KM_CONFIGS[0].label,
        options: KM_CONFIGS[0].options,
        floor: true,
        oracleChecks: ORACLE_CHECKS,
      });
      if (exact.error) throw new Error(`${at}: float32 exact failed: ${exact.error}`);
      const floorP50 = percentile(exact.floorTimes, 50);
      print(`${at}_floor_kernel`, exact.floorKernel, 'kernel');
      print(`${at}_floor_p50`, floorP50, 'ms (one pass over N x dims float32, read before each float32 search)');
      print(`${at}_memory_bandwidth`, (count * DIMS * 4) / (floorP50 / 1000) / 1e9, 'GB/s');
      print(`${at}_float32_recall_at_10_vs_plain_loop`, exact.recallVsPlainLoop, `(${exact.oracleChecks} queries)`);

      const report = (key, label, m, queryCount) => {
        if (m.error) {
          notAvailable(`${at}_${key}`, m.error);
          rows.push({ label, why: m.error });
          return;
        }
        const recall = meanRecallAtK(m.results, exact.results.slice(0, queryCount), 10);
        const filteredRecall = meanRecallAtK(m.filteredResults, exact.filteredResults.slice(0, queryCount), 10);
        print(`${at}_${key}_build`, m.buildMs, `ms (insert ${format(m.insertMs)} ms + first search)`);
        print(`${at}_${key}_top10_p50`, m.p50, 'ms');
        print(`${at}_${key}_top10_p99`, m.p99, 'ms');
        print(`${at}_${key}_vs_floor`, m.p50 / floorP50, 'x');
        if (key !== 'float32') print(`${at}_${key}_recall_at_10`, recall, `(vs float32 exact, ${queryCount} queries)`);
        print(`${at}_${key}_filtered_1pct_top10_p50`, m.filteredP50, 'ms');
        print(`${at}_${key}_filtered_1pct_top10_p99`, m.filteredP99, 'ms');
        if (key !== 'float32') print(`${at}_${key}_filtered_recall_at_10`, filteredRecall, '(vs float32 exact filtered)');
        print(`${at}_${key}_memory_rss`, m.memory.rss, 'bytes/record (process RSS growth across the build)');
        print(`${at}_${key}_memory_heap_and_buffers`, m.memory.heapAndBuffers, 'bytes/record (V8 heap + ArrayBuffers growth)');
        rows.push({ label, m, recall, filteredRecall, queryCount });
      };

      report('float32', KM_CONFIGS[0].label, exact, QUERIES);
      for (const config of KM_CONFIGS.slice(1)) {
        const why = unavailable.get(config.key);
        if (why) {
          notAvailable(`${at}_${config.key}`, why);
          rows.push({ label: config.label, why });
          continue;
        }
        progress(`${at}: ${config.label}`);
        report(config.key, config.label, await run({ ...base, system: 'km', label: config.label, options: config.options }), QUERIES);
      }
      if (PEERS.includes('langchain')) {
        const searchQueries = Math.min(QUERIES, langchainQueries(count));
        progress(`${at}: LangChain MemoryVectorStore (${searchQueries} queries)`);
        report('langchain', 'LangChain MemoryVectorStore', await run({ ...base, system: 'langchain', searchQueries }), searchQueries);
      }
      if (PEERS.includes('hnswlib')) {
        const label = `hnswlib-node (M ${HNSW.m}, efC ${HNSW.efConstruction}, ef ${HNSW.efSearch})`;
        if (hnswlib.hnswlib) {
          progress(`${at}: ${label}`);
          report('hnswlib', label, await run({ ...base, system: 'hnswlib', hnsw: HNSW }), QUERIES);
        } else {
          notAvailable(`${at}_hnswlib`, hnswlib.why);
          rows.push({ label, why: hnswlib.why });
        }
      }

      for (const config of KM_CONFIGS.filter((c) => LOAD_CONFIGS.includes(c.key))) {
        const why = unavailable.get(config.key);
        if (why) {
          notAvailable(`${at}_${config.key}_load`, why);
          continue;
        }
        progress(`${at}: load time, ${config.label}`);
        const load = await run({ ...base, system: 'load', options: config.options });
        if (load.error) {
          notAvailable(`${at}_${config.key}_load`, load.error);
          continue;
        }
        for (const [state, figures, what] of [
          ['load', load, 'closed: base file + log'],
          ['load_log_only', load.logOnly, 'log only: no checkpoint yet'],
        ]) {
          if (!figures) continue;
          const files = Object.entries(figures.sizes).map(([name, bytes]) => `${name} ${(bytes / 1e6).toFixed(1)} MB`);
          print(`${at}_${config.key}_${state}_files`, figures.bytes / 1e6, `MB (${what}: ${files.join(', ')})`);
          print(
            `${at}_${config.key}_${state}_readfile`,
            figures.readFileMs,
            'ms (readFile of those files in a fresh process, median of 3)',
          );
          print(
            `${at}_${config.key}_${state}_open`,
            figures.openMs,
            'ms (new SimpleVectorDb on the directory + count, in a fresh process, median of 3)',
          );
          print(`${at}_${config.key}_${state}_vs_readfile`, figures.ratio, 'x (target <= 2)');
          print(`${at}_${config.key}_${state}_first_search`, figures.firstSearchMs, 'ms');
          print(`${at}_${config.key}_${state}_close`, figures.closeMs, 'ms (close after the writes: the checkpoint, if any)');
        }
        loadRows.push({ at, label: config.label, load });
      }
      tables.push({ at, floorP50, rows });
      await rm(file, { force: true });
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}

const cell = (value, digits = 3) => (Number.isFinite(value) ? String(+value.toPrecision(digits)) : 'n/a');
console.log('');
for (const { at, floorP50, rows } of tables) {
  console.log(`### ${at.replace('_', ', ')} x ${DIMS} dims, floor p50 ${cell(floorP50)} ms`);
  console.log('');
  console.log(
    '| configuration | build s | top-10 p50 ms | x floor | p99 ms | recall@10 | 1% filter p50 ms | filtered recall@10 | RSS B/rec | heap+buf B/rec |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    if (r.why) {
      console.log(`| ${r.label} | n/a (${r.why}) |  |  |  |  |  |  |  |  |`);
      continue;
    }
    const m = r.m;
    const recall = `${cell(r.recall)}${r.queryCount < QUERIES ? ` (${r.queryCount} q)` : ''}`;
    console.log(
      `| ${r.label} | ${cell(m.buildMs / 1000)} | ${cell(m.p50)} | ${cell(m.p50 / floorP50)} | ${cell(m.p99)} | ${recall} | ${cell(m.filteredP50)} | ${cell(r.filteredRecall)} | ${cell(m.memory.rss, 4)} | ${cell(m.memory.heapAndBuffers, 4)} |`,
    );
  }
  console.log('');
}
if (loadRows.length > 0) {
  console.log('| index load | state | files MB | readFile ms | open + count ms | open / readFile | first search ms | close ms |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const { at, label, load } of loadRows) {
    for (const [state, figures] of [
      ['closed (base + log)', load],
      ['log only', load.logOnly],
    ]) {
      if (!figures) continue;
      console.log(
        `| ${at}, ${label} | ${state} | ${cell(figures.bytes / 1e6)} | ${cell(figures.readFileMs)} | ${cell(figures.openMs)} | ${cell(figures.ratio)} | ${cell(figures.firstSearchMs)} | ${cell(figures.closeMs)} |`,
      );
    }
  }
}
