// Search latency while the local model ingests: `POST /search` p50/p99 on an idle `km serve`
// (embedded local model, USE lite in worker threads, the default configuration), then again
// while several large documents are being embedded by the same service. Queries embed through
// the same worker pool as ingestion batches; the pool serves them first, so latency under
// ingestion should stay within a small factor of idle. Loopback only, bounded in time
// (BENCH_MAX_SECONDS, default 180). Prints one `name value unit` line per figure.
//
//   node bench/search-under-ingestion.bench.mjs      (from the repository root, after a build)
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const BIN = join(dirname(require.resolve('@km/cli/package.json')), 'dist', 'bin.js');
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 4);
const DOCUMENT_KB = Number(process.env.BENCH_DOCUMENT_KB ?? 300);
const IDLE_QUERIES = Number(process.env.BENCH_IDLE_QUERIES ?? 60);
const CLIENTS = 2;
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 180);
const REQUEST_TIMEOUT_MS = 30_000;

const WORDS = ('moon orbit planet mars venus tea leaf river mountain ocean storm winter summer engine rocket satellite ' +
  'library archive history science theory energy carbon oxygen crystal metal forest desert island harbour bridge ' +
  'castle market garden music theatre poetry painting language grammar number algebra network protocol server').split(' ');
let seed = 11;
const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const sentence = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
const line = (name, value, unit) => console.log(`${name} ${value} ${unit}`);

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function serve(dataDir) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--data-dir', dataDir, '--host', '127.0.0.1'], {
    env: { ...process.env, KM_LOG_LEVEL: 'warn', KM_EMBEDDINGS: 'local', OPENAI_API_KEY: '', KM_OPENAI_API_KEY: '', KM_OPENAI_BASE_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => (out += c) && out.includes('listening on') && resolve());
    child.once('exit', (code) => reject(new Error(`km serve exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))) };
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

const dataDir = await mkdtemp(join(tmpdir(), 'km-bench-search-ingest-'));
const service = await serve(dataDir);
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
  let pending = new Set(ids);
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

  const [idleP50, idleP99, busyP50, busyP99] = [percentile(idle, 50), percentile(idle, 99), percentile(busy, 50), percentile(busy, 99)];
  line('search_idle_p50', idleP50.toFixed(1), 'ms');
  line('search_idle_p99', idleP99.toFixed(1), 'ms');
  line('search_idle_queries', idle.length, 'requests');
  line('search_under_ingestion_p50', busyP50.toFixed(1), 'ms');
  line('search_under_ingestion_p99', busyP99.toFixed(1), 'ms');
  line('search_under_ingestion_queries', busy.length, 'requests');
  line('search_under_ingestion_p50_ratio', (busyP50 / idleP50).toFixed(2), 'x');
  line('search_under_ingestion_p99_ratio', (busyP99 / idleP99).toFixed(2), 'x');
  line('ingestion_documents', `${DOCUMENTS - pending.size}/${DOCUMENTS}`, `documents_of_${DOCUMENT_KB}KB`);
  line('ingestion_seconds', ingestSeconds.toFixed(1), pending.size === 0 ? 's' : 's_time_box_reached');
} finally {
  await service.stop();
  await rm(dataDir, { recursive: true, force: true });
}
