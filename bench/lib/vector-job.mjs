// One measurement of the vector bench, run in a child process of its own (fresh heap and RSS, so
// memory per record is this system's alone, and a system that runs out of memory fails alone):
// reads the data set file the parent wrote, measures one system (vector-measure.mjs) and sends
// the figures back over IPC. Started by vector-search.bench.mjs with `runJobInChild`.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createReadFloor } from './read-floor.mjs';
import { exactTopK, meanRecallAtK, readDataFile, row, rowNorms } from './vector-data.mjs';
import { measureLoad, measureRunner } from './vector-measure.mjs';
import { hnswlibRunner, kmRunner, langchainRunner } from './vector-runners.mjs';

const CHILD_FLAG = '--vector-bench-job';

/**
 * Runs `job` in a child node (with --expose-gc and `heapMb` of old space) and resolves with its
 * figures; rejects with the child's last stderr lines when it fails (e.g. out of memory) or is
 * still running after `timeoutMs`.
 */
export function runJobInChild(job, { heapMb = 8192, timeoutMs = 4 * 3600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG, JSON.stringify(job)], {
      execArgv: ['--expose-gc', `--max-old-space-size=${heapMb}`],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let result;
    let stderr = '';
    const timer = setTimeout(() => {
      stderr += `\nstopped after ${timeoutMs / 60_000} minutes`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('message', (message) => {
      result = message;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (result?.error) reject(new Error(result.error));
      else if (result) resolve(result);
      else {
        const tail = stderr.trim().split('\n').slice(-3).join(' / ');
        reject(new Error(`child exited with ${signal ?? `code ${code}`}${tail ? `: ${tail}` : ''}`));
      }
    });
  });
}

/**
 * The measurement a job names, in this process. `job.system`: `km` (options), `langchain`,
 * `hnswlib` (hnsw parameters) or `load` (km index load time, options). With `job.floor` the data
 * is read into the read floor's memory and one floor read is timed before each search; with
 * `job.oracleChecks` the first results are checked against a plain double-precision loop.
 */
export async function runJob(job) {
  const floor = job.floor ? createReadFloor(job.count * job.dims * 4) : undefined;
  const data = readDataFile(job.file, { count: job.count, queryCount: job.queryCount, dims: job.dims, into: floor?.buffer });
  if (job.system === 'load') return measureLoad(await import('@km/core'), job.options, data);
  const runner = await createRunner(job);
  const floorTimes = [];
  let between;
  if (floor) {
    floor.read(); // picks the fastest kernel over this data
    between = () => {
      const t = performance.now();
      floor.read();
      floorTimes.push(performance.now() - t);
    };
  }
  const start = performance.now();
  const progress = (done) =>
    process.stderr.write(`  ${runner.label}: ${done} of ${data.count} records in, ${((performance.now() - start) / 1000).toFixed(0)} s\n`);
  const measured = await measureRunner(runner, data, { queryCount: job.searchQueries ?? job.queryCount, between, progress });
  const result = { ...measured, floorTimes, floorKernel: floor?.kernel() };
  if (job.oracleChecks > 0) {
    const norms = rowNorms(data.vectors, data.dims);
    const checks = Math.min(job.oracleChecks, measured.results.length);
    const oracle = Array.from({ length: checks }, (_, q) => exactTopK(data.vectors, data.dims, norms, row(data.queries, data.dims, q), 10));
    result.oracleChecks = checks;
    result.recallVsPlainLoop = meanRecallAtK(measured.results.slice(0, checks), oracle, 10);
  }
  return result;
}

async function createRunner(job) {
  if (job.system === 'km') return kmRunner(await import('@km/core'), job.label, job.options);
  if (job.system === 'langchain') {
    const { MemoryVectorStore } = await import('@langchain/classic/vectorstores/memory');
    return langchainRunner(MemoryVectorStore);
  }
  if (job.system === 'hnswlib') {
    const module = await import('hnswlib-node');
    return hnswlibRunner(module.default ?? module, job.hnsw);
  }
  throw new Error(`unknown system ${job.system}`);
}

if (process.argv[2] === CHILD_FLAG) {
  const job = JSON.parse(process.argv[3]);
  let message;
  try {
    message = await runJob(job);
  } catch (error) {
    message = { error: error.stack ?? String(error) };
  }
  process.send(message, () => process.exit(0));
}
