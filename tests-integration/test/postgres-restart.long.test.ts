import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@km/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, kmEnv, startKm, stopProcess } from '../src/km-process.js';
import { CLUSTER_WAIT_MS, ClusterOutageDatabase, type OutageDatabase, PgliteOutageDatabase } from './helpers/outage-database.js';

// A database restart under a running service and worker: PostgreSQL is taken down at once and
// started again on the same data. That is PGlite over TCP in its own process (SIGKILLed), or, with
// KM_TEST_POSTGRES_OUTAGE_CLUSTER and KM_TEST_POSTGRES_OUTAGE_URL (`.ci/run` sets them), a real
// PostgreSQL cluster of its own stopped with `pg_ctlcluster --mode immediate`. Neither km process may
// die; work queued meanwhile retries (transient errors) and completes once the database is back.
const cluster = ClusterOutageDatabase.fromEnvironment();
describe(`km serve --no-handlers and km worker on PostgreSQL while the database restarts (${cluster?.name ?? 'PGlite over TCP'})`, () => {
  let folder: string | undefined;
  let database: OutageDatabase | undefined;
  const km: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of km) await stopProcess(child); // SIGTERM, SIGKILL after a 10 s grace
    await database?.dispose();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('both processes stay up; a document uploaded while the database is down becomes ready and searchable after it restarts', {
    timeout: 240_000 + (cluster ? CLUSTER_WAIT_MS : 0),
  }, async () => {
    folder = await mkdtemp(join(tmpdir(), 'km-pg-restart-'));
    const dataDir = join(folder, 'km');
    database = cluster ?? new PgliteOutageDatabase(folder);
    await database.start();

    // Enough step attempts, close together, to outlast the restart (a few seconds).
    const configFile = join(folder, 'km.json');
    await writeFile(configFile, JSON.stringify({ queue: { maxStepAttempts: 12, maxAttempts: 20, retryDelayMs: 250 } }));
    const env = kmEnv({ KM_EMBEDDINGS: 'hashing', KM_MEMORY_DB: 'postgres', KM_POSTGRES_URL: database.url, KM_LOG_LEVEL: 'error' });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const serve = await startKm(
      ['serve', '--port', String(port), '--data-dir', dataDir, '--config', configFile, '--no-handlers'],
      'listening on',
      env,
    );
    km.push(serve);
    // The worker logs its retries (warn, JSON lines on stdout): the evidence that it tried while the database was down.
    const worker = await startKm(['worker', '--data-dir', dataDir, '--config', configFile], 'km worker running', {
      ...env,
      KM_LOG_LEVEL: 'warn',
    });
    km.push(worker);
    let workerLog = '';
    worker.stdout!.on('data', (chunk: Buffer) => (workerLog += chunk.toString()));

    const upload = async (documentId: string, text: string, tags = ['topic:space']) => {
      const form = new FormData();
      form.append('documentId', documentId);
      for (const tag of tags) form.append('tags', tag);
      form.append('file1', new Blob([text], { type: 'text/plain' }), `${documentId}.txt`);
      return fetch(`${url}/upload`, { method: 'POST', body: form });
    };
    const status = async (documentId: string) =>
      (await (await fetch(`${url}/upload-status?documentId=${documentId}`)).json()) as { completed: boolean; failed?: boolean };
    const search = (query: string) =>
      fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, minRelevance: 0, limit: 10 }),
      });

    expect((await upload('comet', 'Halley comet returns to the inner solar system every 76 years.')).status).toBe(202);
    await eventually(async () => expect(await status('comet')).toMatchObject({ completed: true }), 60_000, 200);
    expect((await search('Halley comet')).status).toBe(200); // the API's pool now holds an idle connection

    // Tags a database cannot store are refused at upload, before anything is queued.
    expect((await upload('hostile', 'text', ['user:a\u0000b'])).status).toBe(400);

    await database.crash();
    expect((await upload('bread', 'Sourdough bread rises slowly with wild yeast and lactic bacteria.')).status).toBe(202);
    // While the database is down a search is a 503 (transient), not a crash.
    expect((await search('sourdough')).status).toBe(503);
    // The worker tries, and fails transiently: it says it will retry, and the upload is not done.
    const retries = () =>
      workerLog.split('\n').filter((line) => line.includes('step failed, will retry') && line.includes('"documentId":"bread"'));
    await eventually(() => expect(retries()).not.toEqual([]), 60_000, 100);
    expect(retries()[0]).toMatch(/PostgreSQL unavailable|transient/);
    expect(await status('bread')).toMatchObject({ completed: false });

    await database.restart();
    await eventually(async () => expect(await status('bread')).toMatchObject({ completed: true, failed: false }), 120_000, 250);
    const results = (await (await search('Halley comet sourdough bread')).json()) as { results: Array<{ documentId: string }> };
    expect(results.results.map((r) => r.documentId).sort()).toEqual(['bread', 'comet']);
    expect([serve.exitCode, serve.signalCode, worker.exitCode, worker.signalCode]).toEqual([null, null, null, null]);
  });
});
