// Distributed ingestion on RabbitMQ: documents per minute with 1 and 2 `km worker`s on this
// machine, and the queue overhead (upload → completed for one small document).
//
// `km serve --no-handlers` queues the work; workers share a PostgreSQL + pgvector memory DB
// (PGlite served to every process by startPgliteServer) and the data folder. Embeddings: the
// local USE model (KM_BENCH_EMBEDDINGS=hashing for the pipeline's own cost).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { startPgliteServer } from '@km/memorydb-postgres/testing';
import amqp from 'amqplib';
import { freePort } from './lib/free-port.mjs';

const BIN = join(dirname(createRequire(import.meta.url).resolve('@km/cli/package.json')), 'dist', 'bin.js');
const RABBITMQ_URL = process.env.KM_TEST_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const DOCUMENTS = Number(process.env.KM_BENCH_DOCUMENTS ?? 120);
const EMBEDDINGS = process.env.KM_BENCH_EMBEDDINGS ?? 'local';

try {
  await (await amqp.connect(RABBITMQ_URL, { timeout: 3000 })).close();
} catch (error) {
  console.log(
    `distributed ingestion: skipped, no RabbitMQ at 127.0.0.1:5672 (${error.message}); start one with \`rabbitmq-server -detached\``,
  );
  process.exit(0);
}

function startKm(args, ready, env) {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (c) => {
      output += c;
      if (output.includes(ready)) resolve(child);
    });
    child.stderr.on('data', (c) => (output += c));
    child.once('exit', (code) => reject(new Error(`km ${args[0]} exited ${code}: ${output}`)));
  });
}
const stop = (child) =>
  new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGTERM'))));

// About 1.5 KB of prose per document: two or three partitions, each embedded.
const text = (i) =>
  Array.from(
    { length: 12 },
    (_, s) => `Report ${i} section ${s} describes the harbour, the tides of week ${s} and the ships that came in.`,
  ).join(' ');

async function run(workers) {
  const dataDir = await mkdtemp(join(tmpdir(), 'km-bench-dist-'));
  const db = await PGlite.create({ extensions: { vector } });
  const pg = await startPgliteServer(db);
  const prefix = `kmbench-${randomUUID().slice(0, 8)}.`;
  const env = {
    ...process.env,
    KM_LOG_LEVEL: 'error',
    KM_EMBEDDINGS: EMBEDDINGS,
    KM_QUEUE: 'rabbitmq',
    KM_RABBITMQ_URL: RABBITMQ_URL,
    KM_QUEUE_PREFIX: prefix,
    KM_MEMORY_DB: 'postgres',
    KM_POSTGRES_URL: pg.url,
    KM_POSTGRES_MAX_CONNECTIONS: '2',
    KM_DATA_DIR: dataDir,
  };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const children = [await startKm(['serve', '--port', String(port), '--no-handlers'], 'listening on', env)];
  for (let i = 0; i < workers; i++) children.push(await startKm(['worker'], 'km worker running', env));
  const upload = async (id, body) => {
    const form = new FormData();
    form.append('documentId', id);
    form.append('file1', new Blob([body], { type: 'text/plain' }), `${id}.txt`);
    const r = await fetch(`${url}/upload`, { method: 'POST', body: form });
    if (r.status !== 202) throw new Error(`upload ${id}: ${r.status}`);
  };
  const completed = async (id) => (await (await fetch(`${url}/upload-status?documentId=${id}`)).json()).completed === true;
  try {
    // Warm-up: the first document loads the model in every worker.
    await Promise.all(Array.from({ length: workers * 2 }, (_, i) => upload(`warm-${i}`, text(i))));
    for (let i = 0; i < workers * 2; i++) while (!(await completed(`warm-${i}`))) await new Promise((r) => setTimeout(r, 100));

    const ids = Array.from({ length: DOCUMENTS }, (_, i) => `doc-${i}`);
    const start = performance.now();
    for (let i = 0; i < ids.length; i += 10) await Promise.all(ids.slice(i, i + 10).map((id, j) => upload(id, text(i + j))));
    const pending = new Set(ids);
    while (pending.size > 0) {
      const done = await Promise.all([...pending].map(async (id) => [id, await completed(id)]));
      for (const [id, ok] of done) if (ok) pending.delete(id);
      if (pending.size > 0) await new Promise((r) => setTimeout(r, 100));
    }
    const minutes = (performance.now() - start) / 60_000;

    // Queue overhead: one small document at a time on an idle pipeline.
    const latencies = [];
    for (let i = 0; i < 10; i++) {
      const id = `small-${i}`;
      const t0 = performance.now();
      await upload(id, 'A short note.');
      while (!(await completed(id))) await new Promise((r) => setTimeout(r, 5));
      latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    return { docsPerMinute: DOCUMENTS / minutes, p50: latencies[5], max: latencies[9] };
  } finally {
    for (const c of children) await stop(c);
    await pg.stop();
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
    const connection = await amqp.connect(RABBITMQ_URL);
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    for (const step of [
      'extract',
      'partition',
      'gen_embeddings',
      'save_records',
      'summarize',
      'delete_generated_files',
      'private_delete_document',
      'private_delete_index',
    ]) {
      for (const suffix of ['', '-poison', '-delay-1000ms', '-delay-2000ms', '-delay-4000ms', '-delay-8000ms'])
        await channel.deleteQueue(`${prefix}${step}${suffix}`).catch(() => undefined);
    }
    await connection.close();
  }
}

console.log(
  `distributed ingestion on RabbitMQ: ${DOCUMENTS} documents of ~1.5 KB, ${EMBEDDINGS} embeddings, PGlite memory DB shared over TCP`,
);
const one = await run(1);
console.log(
  `  1 worker : ${one.docsPerMinute.toFixed(0)} documents/min; small document upload → completed: p50 ${one.p50.toFixed(0)} ms, max ${one.max.toFixed(0)} ms`,
);
const two = await run(2);
console.log(
  `  2 workers: ${two.docsPerMinute.toFixed(0)} documents/min (${(two.docsPerMinute / one.docsPerMinute).toFixed(2)}× one worker); small document: p50 ${two.p50.toFixed(0)} ms, max ${two.max.toFixed(0)} ms`,
);
