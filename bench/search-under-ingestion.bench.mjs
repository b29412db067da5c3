// Search latency while the local model ingests: `POST /search` p50/p99 on an idle service
// (embedded local model, USE lite in worker threads), then again while several large documents
// are being embedded by the same service. Queries embed through the same worker pool as
// ingestion batches. The run has two phases, each on a fresh service and data folder:
//
//   - `priority`: the defaults, queries in the pool's priority lane, ingestion in jobs of 4 texts;
//   - `fifo`: the peer, `queryPriority: false` and jobs of 16 texts (every job in arrival order).
//
// Each phase's service is an in-process `startService` from @km/service, run in a child of this
// script (so the clients' event loop is not the service's), with the generator set through
// `configure`. Loopback only, bounded in time (BENCH_MAX_SECONDS per phase, default 180).
// Prints one `name value unit` line per figure, prefixed with the phase.
//
//   node bench/search-under-ingestion.bench.mjs      (from the repository root, after a build)
//
// BENCH_DOCUMENTS (4), BENCH_DOCUMENT_KB (300), BENCH_IDLE_QUERIES (200, at least 200),
// BENCH_MAX_SECONDS (180), BENCH_READY_SECONDS (120), BENCH_PHASES (priority,fifo) size it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from './lib/free-port.mjs';

const require = createRequire(import.meta.url);
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 4);
const DOCUMENT_KB = Number(process.env.BENCH_DOCUMENT_KB ?? 300);
const IDLE_QUERIES = Math.max(200, Number(process.env.BENCH_IDLE_QUERIES ?? 200));
const CLIENTS = 2;
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 180);
const READY_SECONDS = Number(process.env.BENCH_READY_SECONDS ?? 120);
const REQUEST_TIMEOUT_MS = 30_000;
const PHASES = {
  priority: { queryPriority: true, maxTextsPerJob: 4 },
  fifo: { queryPriority: false, maxTextsPerJob: 16 },
};
const RUN = (process.env.BENCH_PHASES ?? 'priority,fifo')
  .split(',')
  .map((p) => p.trim())
  .filter((p) => p in PHASES);

const WORDS = (
  'moon orbit planet mars venus tea leaf river mountain ocean storm winter summer engine rocket satellite ' +
  'library archive history science theory energy carbon oxygen crystal metal forest desert island harbour bridge ' +
  'castle market garden music theatre poetry painting language grammar number algebra network protocol server'
).split(' ');
let seed = 11;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const sentence = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
const line = (name, value, unit) => console.log(`${name} ${value} ${unit}`);

/**
 * The child side: one service with the phase's generator, until SIGTERM. The bench's own env
 * switch (BENCH_SERVE_PHASE), read by this script only.
 */
async function serveChild(spec) {
  // @km/service is a dependency of @km/cli, not of the bench: load it from there.
  const cli = dirname(require.resolve('@km/cli/package.json'));
  const serviceDir = dirname(createRequire(join(cli, 'package.json')).resolve('@km/service/package.json'));
  const { startService } = await import(pathToFileURL(join(serviceDir, 'dist', 'index.js')).href);
  const { UniversalSentenceEncoderGenerator } = await import('@km/ai-local');
  const generator = new UniversalSentenceEncoderGenerator({ queryPriority: spec.queryPriority, maxTextsPerJob: spec.maxTextsPerJob });
  const service = await startService({
    overrides: { host: '127.0.0.1', port: spec.port, dataDirectory: spec.dataDir, logLevel: 'warn', embeddings: { provider: 'local' } },
    configure: (builder) => builder.withEmbeddingGenerator(generator),
    handleSignals: true,
  });
  await generator.ready();
  console.log(`listening on ${service.url}`);
}

/** Starts a phase's service in a child process; rejects when it is not ready within READY_SECONDS. */
async function serve(dataDir, phase) {
  const port = await freePort();
  const spec = { ...PHASES[phase], port, dataDir };
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    env: {
      ...process.env,
      BENCH_SERVE_PHASE: JSON.stringify(spec),
      KM_LOG_LEVEL: 'warn',
      KM_EMBEDDINGS: 'local',
      OPENAI_API_KEY: '',
      KM_OPENAI_API_KEY: '',
      KM_OPENAI_BASE_URL: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () =>
    new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM'))));
  try {
    await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`the ${phase} service was not ready within ${READY_SECONDS} s`)),
        READY_SECONDS * 1000,
      );
      child.stdout.on('data', (c) => {
        out += c;
        if (out.includes('listening on')) clearTimeout(timer), resolve();
      });
      child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the ${phase} service exited with ${code}`))));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, stop };
}

async function upload(url, documentId, text) {
  const form = new FormData();
  form.append('documentId', documentId);
  form.append('file1', new Blob([text], { type: 'text/plain' }), `${documentId}.txt`);
  const response = await fetch(`${url}/upload`, { method: 'POST', body: form });
  if (response.status !== 202) throw new Error(`upload ${documentId}: HTTP ${response.status}`);
}

async function completed(url, documentId) {
  const response = await fetch(`${url}/upload-status?documentId=${documentId}`);
  if (!response.ok) return false;
  const status = await response.json();
  if (status.failed) throw new Error(`${documentId} failed: ${status.error}`);
  return status.completed === true;
}

/** One search; its latency in ms (a timeout counts as the timeout). */
async function search(url) {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: sentence(6), limit: 5 }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`search: HTTP ${response.status}`);
  } catch (error) {
    if (error.name !== 'TimeoutError') throw error;
  }
  return performance.now() - started;
}

/** CLIENTS loops of searches until `until()` says stop; all latencies. */
async function searchLoop(url, until) {
  const latencies = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (!(await until(latencies.length))) latencies.push(await search(url));
    }),
  );
  return latencies;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** One phase on a fresh service: idle latencies, then latencies while DOCUMENTS are ingested. */
async function runPhase(phase) {
  const dataDir = await mkdtemp(join(tmpdir(), `km-bench-search-ingest-${phase}-`));
  const service = await serve(dataDir, phase);
  const deadline = Date.now() + MAX_SECONDS * 1000;
  try {
    // A small corpus to search, ingested first.
    await upload(service.url, 'seed', Array.from({ length: 40 }, () => `${sentence(60)}.`).join('\n\n'));
    while (!(await completed(service.url, 'seed'))) await new Promise((r) => setTimeout(r, 200));
    for (let i = 0; i < 5; i++) await search(service.url); // warm up

    const idle = await searchLoop(service.url, async (n) => n >= IDLE_QUERIES);

    const ids = Array.from({ length: DOCUMENTS }, (_, i) => `large-${i}`);
    const paragraphs = Math.ceil((DOCUMENT_KB * 1024) / 400);
    const ingestStarted = performance.now();
    for (const id of ids) await upload(service.url, id, Array.from({ length: paragraphs }, () => `${sentence(60)}.`).join('\n\n'));
    const pending = new Set(ids);
    let lastCheck = 0;
    const busy = await searchLoop(service.url, async () => {
      if (Date.now() > deadline) return true;
      if (Date.now() - lastCheck > 500) {
        lastCheck = Date.now();
        for (const id of [...pending]) if (await completed(service.url, id)) pending.delete(id);
      }
      return pending.size === 0;
    });
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    return { phase, idle, busy, ingestSeconds, done: DOCUMENTS - pending.size };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function report({ phase, idle, busy, ingestSeconds, done }) {
  const [idleP50, idleP99, busyP50, busyP99] = [percentile(idle, 50), percentile(idle, 99), percentile(busy, 50), percentile(busy, 99)];
  const { queryPriority, maxTextsPerJob } = PHASES[phase];
  line(`${phase}.config`, `queryPriority=${queryPriority},maxTextsPerJob=${maxTextsPerJob}`, '');
  line(`${phase}.search_idle_p50`, idleP50.toFixed(1), 'ms');
  line(`${phase}.search_idle_p99`, idleP99.toFixed(1), 'ms');
  line(`${phase}.search_idle_queries`, idle.length, 'requests');
  line(`${phase}.search_under_ingestion_p50`, busyP50.toFixed(1), 'ms');
  line(`${phase}.search_under_ingestion_p99`, busyP99.toFixed(1), 'ms');
  line(`${phase}.search_under_ingestion_queries`, busy.length, 'requests');
  line(`${phase}.search_under_ingestion_p50_ratio`, (busyP50 / idleP50).toFixed(2), 'x');
  line(`${phase}.search_under_ingestion_p99_ratio`, (busyP99 / idleP99).toFixed(2), 'x');
  line(`${phase}.ingestion_documents`, `${done}/${DOCUMENTS}`, `documents_of_${DOCUMENT_KB}KB`);
  line(`${phase}.ingestion_seconds`, ingestSeconds.toFixed(1), done === DOCUMENTS ? 's' : 's_time_box_reached');
}

if (process.env.BENCH_SERVE_PHASE) {
  await serveChild(JSON.parse(process.env.BENCH_SERVE_PHASE));
} else {
  if (RUN.length === 0) throw new Error(`BENCH_PHASES names no phase of ${Object.keys(PHASES).join(', ')}`);
  const results = [];
  for (const phase of RUN) {
    seed = 11; // the same queries and documents in every phase
    const result = await runPhase(phase);
    report(result);
    results.push(result);
  }
  const [a, b] = results;
  if (a && b) {
    line(`${b.phase}_vs_${a.phase}.search_under_ingestion_p50`, (percentile(b.busy, 50) / percentile(a.busy, 50)).toFixed(2), 'x');
    line(`${b.phase}_vs_${a.phase}.search_under_ingestion_p99`, (percentile(b.busy, 99) / percentile(a.busy, 99)).toFixed(2), 'x');
    line(`${b.phase}_vs_${a.phase}.ingestion_seconds`, (b.ingestSeconds / a.ingestSeconds).toFixed(2), 'x');
  }
}
