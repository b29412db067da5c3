// Long questions and the local embedder: `POST /search` latency on an idle service (the floor),
// then right after three clients sent 20,000-word `POST /ask` questions and hung up after 1 s,
// and how long an upload sent meanwhile takes to complete; then how long one whole 20,000-word
// ask takes, and how long the model holds a worker for the longest input it is fed (2,048
// tokens, its `maxTokens`) and for a query cut to 512 tokens (core's `maxQueryTokens`).
//
// The service is an in-process `startService` from @km/service with its defaults (the embedded
// local model, USE lite in worker threads), run in a child of this script. Loopback only.
// Prints one `name value unit` line per figure.
//
//   node bench/long-query.bench.mjs      (from the repository root, after a build)
//
// BENCH_WORDS (20000), BENCH_ASKS (3), BENCH_HANG_UP_MS (1000), BENCH_READY_SECONDS (120) size it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './lib/free-port.mjs';

const require = createRequire(import.meta.url);
const WORDS = Number(process.env.BENCH_WORDS ?? 20_000);
const ASKS = Number(process.env.BENCH_ASKS ?? 3);
const HANG_UP_MS = Number(process.env.BENCH_HANG_UP_MS ?? 1000);
const READY_SECONDS = Number(process.env.BENCH_READY_SECONDS ?? 120);
const FLOOR_SEARCHES = 20;
const VOCABULARY = (
  'moon orbit planet mars venus tea leaf river mountain ocean storm winter summer engine rocket satellite ' +
  'library archive history science theory energy carbon oxygen crystal metal forest desert island harbour bridge'
).split(' ');
const line = (name, value, unit) => console.log(`long_query ${name} ${value} ${unit}`);
/** `count` words; each `variant` another text, so no cache shares the questions. */
const text = (count, variant) =>
  Array.from({ length: count }, (_, i) => VOCABULARY[(i * (variant + 7) + variant) % VOCABULARY.length]).join(' ');
const ms = (started) => Math.round(performance.now() - started);

/** The child side: one service with its defaults, until SIGTERM. */
async function serveChild(spec) {
  // @km/service is a dependency of @km/cli, not of the bench: load it from there.
  const cli = dirname(require.resolve('@km/cli/package.json'));
  const serviceDir = dirname(createRequire(join(cli, 'package.json')).resolve('@km/service/package.json'));
  const { startService } = await import(pathToFileURL(join(serviceDir, 'dist', 'index.js')).href);
  const service = await startService({
    overrides: { host: '127.0.0.1', port: spec.port, dataDirectory: spec.dataDir, logLevel: 'warn', embeddings: { provider: 'local' } },
    handleSignals: true,
  });
  console.log(`listening on ${service.url}`);
}

async function serve(dataDir) {
  const port = await freePort();
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_LONG_QUERY_SERVE: JSON.stringify({ port, dataDir }), KM_LOG_LEVEL: 'warn', KM_EMBEDDINGS: 'local' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () =>
    new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM'))));
  await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the service was not ready within ${READY_SECONDS} s`)), READY_SECONDS * 1000);
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('listening on')) clearTimeout(timer), resolve();
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the service exited with ${code}`))));
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  return { url: `http://127.0.0.1:${port}`, stop };
}

const post = (url, path, body, signal) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

async function upload(url, documentId, content) {
  const form = new FormData();
  form.append('documentId', documentId);
  form.append('file1', new Blob([content], { type: 'text/plain' }), `${documentId}.txt`);
  const response = await fetch(`${url}/upload`, { method: 'POST', body: form });
  if (response.status !== 202) throw new Error(`upload ${documentId}: HTTP ${response.status}`);
}

async function waitCompleted(url, documentId, timeoutMs = 600_000) {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const response = await fetch(`${url}/upload-status?documentId=${documentId}`);
    if (response.ok) {
      const status = await response.json();
      if (status.failed) throw new Error(`${documentId} failed: ${status.error}`);
      if (status.completed) return;
    }
    await sleep(20);
  }
  throw new Error(`${documentId} did not complete within ${timeoutMs} ms`);
}

let searches = 0;
/** One search, each with another query (so none comes from the query-embedding cache); its latency in ms. */
async function search(url) {
  const started = performance.now();
  const query = `which planet has a satellite orbit, question ${searches++}?`;
  const response = await post(url, '/search', { query, limit: 5 }, AbortSignal.timeout(600_000));
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`search: HTTP ${response.status}`);
  return performance.now() - started;
}

/** Time the model holds a worker for one input: a 20,000-word text cut to maxTokens, and a query cut to 512 tokens. */
async function holdTimes() {
  const { UniversalSentenceEncoderGenerator } = await import('@km/ai-local');
  const { CL100KTokenizer } = await import('@km/core');
  const generator = new UniversalSentenceEncoderGenerator({ workers: 1 });
  try {
    await generator.ready();
    const long = text(WORDS, 11);
    const query = new CL100KTokenizer().truncate(long, 512);
    const best = async (input) => {
      let min = Infinity;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await generator.generateEmbeddings([`${i} ${input}`], undefined, { purpose: 'query' });
        min = Math.min(min, performance.now() - started);
      }
      return Math.round(min);
    };
    line('embed_one_input_cut_to_max_tokens', await best(long), `ms (maxTokens ${generator.maxTokens})`);
    line('embed_one_query_cut_to_512_tokens', await best(query), 'ms');
  } finally {
    await generator.close();
  }
}

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'km-bench-long-query-'));
  const service = await serve(dataDir);
  try {
    const { url } = service;
    await upload(url, 'seed', `${text(400, 1)}. Mars is a planet; its satellite Phobos has a low orbit.`);
    await waitCompleted(url, 'seed');
    await search(url);
    const floor = [];
    for (let i = 0; i < FLOOR_SEARCHES; i++) floor.push(await search(url));
    floor.sort((a, b) => a - b);
    const p50 = floor[Math.floor(floor.length / 2)];
    line('search_idle_p50', Math.round(p50), 'ms');
    line('search_idle_max', Math.round(floor.at(-1)), 'ms');
    // Clients ask long questions and hang up.
    await Promise.all(
      Array.from({ length: ASKS }, async (_, i) => {
        const controller = new AbortController();
        const request = post(url, '/ask', { question: `What orbits Mars? ${text(WORDS, i + 2)}`, stream: i === 1 }, controller.signal);
        await sleep(HANG_UP_MS);
        controller.abort();
        await request.then((r) => r.body?.cancel()).catch(() => undefined);
      }),
    );
    const uploaded = performance.now();
    await upload(url, 'after', `${text(800, 5)}. Venus has no moon.`);
    const after = [];
    for (let i = 0; i < 5; i++) after.push(await search(url));
    line(`search_after_${ASKS}_abandoned_${WORDS}_word_asks_first`, Math.round(after[0]), 'ms');
    line(`search_after_${ASKS}_abandoned_${WORDS}_word_asks_max_of_5`, Math.round(Math.max(...after)), 'ms');
    line('search_after_minus_idle_p50', Math.round(Math.max(...after) - p50), 'ms');
    await waitCompleted(url, 'after');
    line('upload_completed_after_the_asks', ms(uploaded), 'ms');
    const asked = performance.now();
    const response = await post(url, '/ask', { question: `What orbits Mars? ${text(WORDS, 9)}` });
    await response.arrayBuffer();
    line(`ask_${WORDS}_words_whole`, ms(asked), `ms (HTTP ${response.status})`);
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  await holdTimes();
}

if (process.env.BENCH_LONG_QUERY_SERVE) await serveChild(JSON.parse(process.env.BENCH_LONG_QUERY_SERVE));
else await main();
