// The HTTP service under load: `POST /search` requests per second and p99 latency with 32
// concurrent connections on loopback over 10k records (autocannon, 10 s), and the time from
// `POST /upload` of a 1 MB text to `completed`. Each figure is taken twice: with word-hashing
// query embeddings (the service's own cost) and with the embedded local model (USE lite, the
// default configuration, which embeds every query). The service runs as `km serve` in its own
// process; autocannon shares the machine's cores with it.
// Prints one `name value unit` line per figure. Run with `pnpm --filter @km/bench bench:service`.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { HashingEmbeddingGenerator, KernelMemoryBuilder, silentLogger } from '@km/core';
import { freePort } from './lib/free-port.mjs';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const PARTS_PER_DOCUMENT = 10;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 32;
const BIN = join(dirname(createRequire(import.meta.url).resolve('@km/cli/package.json')), 'dist', 'bin.js');

const WORDS = (
  'moon orbit planet mars venus tea leaf river mountain ocean storm winter summer engine rocket satellite ' +
  'library archive history science theory energy carbon oxygen crystal metal forest desert island harbour bridge ' +
  'castle market garden music theatre poetry painting language grammar number algebra network protocol server ' +
  'memory vector search answer question document record index filter citation'
).split(' ');
let seed = 7;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const sentence = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');

/** Ingests RECORDS partitions (PARTS_PER_DOCUMENT per document) into a data folder, in process. */
async function buildDataset(dimensions) {
  const dir = await mkdtemp(join(tmpdir(), `km-bench-service-${dimensions}-`));
  const memory = new KernelMemoryBuilder()
    .withDataDirectory(dir)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator({ dimensions }))
    .withPartitionOptions({ maxTokensPerChunk: 120, overlapTokens: 0 })
    .withLogger(silentLogger)
    .build();
  const documents = RECORDS / PARTS_PER_DOCUMENT;
  for (let d = 0; d < documents; d++) {
    const paragraphs = Array.from({ length: PARTS_PER_DOCUMENT }, () => `${sentence(95)}.`);
    await memory.importText(paragraphs.join('\n\n'), { documentId: `doc-${d}`, tags: { group: [`g${d % 20}`] } });
  }
  const count = await memory.orchestrator.context.memoryDbs[0].count('default');
  await memory.orchestrator.context.memoryDbs[0].close();
  return { dir, count };
}

async function serve(dataDir, embeddings) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--data-dir', dataDir], {
    env: {
      ...process.env,
      KM_LOG_LEVEL: 'warn',
      KM_EMBEDDINGS: embeddings,
      OPENAI_API_KEY: '',
      KM_OPENAI_API_KEY: '',
      KM_OPENAI_BASE_URL: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => (out += c) && out.includes('listening on') && resolve());
    child.once('exit', (code) => reject(new Error(`km serve exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) };
}

async function loadTest(url, body) {
  const queries = Array.from({ length: 200 }, () => JSON.stringify({ ...body, query: sentence(6) }));
  let i = 0;
  const result = await autocannon({
    url: `${url}/search`,
    connections: CONNECTIONS,
    duration: DURATION_S,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: queries[i++ % queries.length] }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

async function uploadToReady(url, bytes) {
  const text = Array.from({ length: Math.ceil(bytes / 600) }, () => `${sentence(90)}.`)
    .join('\n\n')
    .slice(0, bytes);
  const form = new FormData();
  form.append('index', 'upload-bench');
  form.append('documentId', 'one-megabyte');
  form.append('file1', new Blob([text], { type: 'text/plain' }), 'big.txt');
  const started = performance.now();
  const res = await fetch(`${url}/upload`, { method: 'POST', body: form });
  if (res.status !== 202) throw new Error(`upload answered ${res.status}`);
  const accepted = performance.now() - started;
  for (;;) {
    const status = await (await fetch(`${url}/upload-status?index=upload-bench&documentId=one-megabyte`)).json();
    if (status.failed) throw new Error(status.error);
    if (status.completed) return { accepted, ready: performance.now() - started };
    await new Promise((r) => setTimeout(r, 20));
  }
}

const line = (name, value, unit) => console.log(`${name} ${value} ${unit}`);

for (const { embeddings, dimensions, label } of [
  { embeddings: 'hashing', dimensions: 384, label: 'hashing' },
  { embeddings: 'local', dimensions: 512, label: 'local-use' },
]) {
  const { dir, count } = await buildDataset(dimensions);
  const service = await serve(dir, embeddings);
  try {
    line(`service_${label}_records`, count, 'records');
    await loadTest(service.url, { limit: 10 }).catch(() => undefined); // warm-up (model load, JIT)
    const plain = await loadTest(service.url, { limit: 10 });
    line(`service_${label}_search_rps`, Math.round(plain.requests.average), 'req/s');
    line(`service_${label}_search_p50`, plain.latency.p50, 'ms');
    line(`service_${label}_search_p99`, plain.latency.p99, 'ms');
    const filtered = await loadTest(service.url, { limit: 10, filters: [{ group: ['g3'] }] });
    line(`service_${label}_search_filtered_rps`, Math.round(filtered.requests.average), 'req/s');
    line(`service_${label}_search_filtered_p99`, filtered.latency.p99, 'ms');
    const upload = await uploadToReady(service.url, 1024 * 1024);
    line(`service_${label}_upload_1mb_accepted`, Math.round(upload.accepted), 'ms');
    line(`service_${label}_upload_1mb_ready`, Math.round(upload.ready), 'ms');
  } finally {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
