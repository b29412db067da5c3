import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { DEFAULT_STEPS } from '@km/core';
import { freshPglite, startPgliteServer, type PgliteServer } from '@km/memorydb-postgres/testing';
import { QueueNames, retryDelay } from '@km/queue-rabbitmq';
import amqp from 'amqplib';
import pgDriver from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type AzureBlobBackend, startAzureBlobBackend } from '../src/azurite.js';
import { exited, freePort, kmEnv, startKm } from '../src/km-process.js';
import { expectOneRecordPerDocument } from '../src/record-sets.js';
import { RABBITMQ_URL, deleteQueues, rabbitMqUnavailable } from '../src/rabbitmq-broker.js';

// Distributed ingestion with NO shared folder: `km serve --no-handlers` and two `km worker`s,
// each with its own empty data folder, on RabbitMQ, one PostgreSQL + pgvector memory DB (PGlite
// served on a socket) and a shared content storage (Azure Blobs on Azurite, then Postgres).
const DOCUMENTS = 100;
const noRabbit = await rabbitMqUnavailable();
if (noRabbit) console.log(`[km] skipped distributed ingestion without a shared folder: ${noRabbit}`);

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe.skipIf(noRabbit)('distributed ingestion with no shared folder (two workers, one SIGKILLed)', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const queueNames: string[] = [];
  const databases: Array<{ db: PGlite; pg: PgliteServer; sql: pgDriver.Pool }> = [];
  let blobs: AzureBlobBackend | undefined;
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    for (const { db, pg, sql } of databases) {
      await sql.end();
      await pg.stop();
      await db.close();
    }
    await blobs?.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    await deleteQueues(queueNames);
  });

  /** A fresh PostgreSQL + pgvector (PGlite served on a socket) and a pool the test reads through. */
  async function startDatabase() {
    const db = await freshPglite({ extensions: { vector } });
    const pg = await startPgliteServer(db);
    const sql = new pgDriver.Pool({ connectionString: pg.url, max: 1 });
    databases.push({ db, pg, sql });
    return { url: pg.url, sql };
  }

  /**
   * Starts the deployment on the database and the storage of `storageEnv`, ingests the
   * documents through a SIGKILL, and checks the outcome.
   */
  async function ingestWithoutSharedFolder(database: { url: string; sql: pgDriver.Pool }, storageEnv: Record<string, string>) {
    const { sql } = database;
    const run = randomUUID().slice(0, 8);
    const prefix = `kmtest-${run}.`;
    const table = 'km-default';
    const steps = [...DEFAULT_STEPS, 'private_delete_document', 'private_delete_index', 'summarize', 'delete_generated_files'];
    for (const s of steps) {
      const q = `${prefix}${s}`;
      queueNames.push(q, QueueNames.poison(q), ...[1, 2, 3, 4].map((a) => QueueNames.delay(q, retryDelay(a, 1000, 60_000))));
    }
    const dataDirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), 'km-own-folder-'))));
    dirs.push(...dataDirs);
    const env = (dataDir: string) =>
      kmEnv({
        KM_EMBEDDINGS: 'hashing',
        KM_QUEUE: 'rabbitmq',
        KM_RABBITMQ_URL: RABBITMQ_URL,
        KM_QUEUE_PREFIX: prefix,
        KM_MEMORY_DB: 'postgres',
        KM_POSTGRES_URL: database.url,
        KM_POSTGRES_MAX_CONNECTIONS: '2',
        KM_DATA_DIR: dataDir,
        ...storageEnv,
      });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const api = await startKm(['serve', '--port', String(port), '--no-handlers'], 'listening on', env(dataDirs[0]!));
    const workerA = await startKm(['worker'], 'km worker running', env(dataDirs[1]!));
    const workerB = await startKm(['worker'], 'km worker running', env(dataDirs[2]!));
    children.push(api, workerA, workerB);

    const ids = Array.from({ length: DOCUMENTS }, (_, i) => `doc-${String(i).padStart(3, '0')}`);
    const uploading = (async () => {
      for (const id of ids) {
        const form = new FormData();
        form.append('documentId', id);
        form.append('file1', new Blob([`Document ${id} talks about item ${id} and nothing else.`], { type: 'text/plain' }), `${id}.txt`);
        const response = await fetch(`${url}/upload`, { method: 'POST', body: form });
        expect(response.status, `upload ${id}`).toBe(202);
      }
    })();
    const savedCount = async () =>
      Number((await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`).catch(() => ({ rows: [{ n: 0 }] }))).rows[0]!.n);
    const deadline = Date.now() + 150_000;
    let saved = 0;
    while ((saved = await savedCount()) < DOCUMENTS / 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(saved, 'records saved before the kill').toBeGreaterThan(0);
    workerA.kill('SIGKILL');
    await exited(workerA);
    expect(saved, 'records saved before the kill').toBeLessThan(DOCUMENTS);
    await uploading;

    const completed = async () => {
      const statuses = await Promise.all(
        ids.map(async (id) => (await (await fetch(`${url}/upload-status?documentId=${id}`)).json()) as { completed?: boolean }),
      );
      return statuses.filter((s) => s.completed).length;
    };
    let done = 0;
    while ((done = await completed()) < DOCUMENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(done, 'documents completed').toBe(DOCUMENTS);

    // Exactly one record set per document: one partition each, with its own text.
    await expectOneRecordPerDocument(sql, table, ids);

    // Every step queue is empty, nothing is poisoned.
    const connection = await amqp.connect(RABBITMQ_URL);
    try {
      const channel = await connection.createChannel();
      for (const step of DEFAULT_STEPS) {
        expect((await channel.checkQueue(`${prefix}${step}`)).messageCount, `${step} queue`).toBe(0);
        expect((await channel.checkQueue(QueueNames.poison(`${prefix}${step}`))).messageCount, `${step} poison queue`).toBe(0);
      }
    } finally {
      await connection.close();
    }

    // No process wrote anything a second machine would need: only upload spool files, if any.
    for (const dir of dataDirs) {
      const written = (await filesUnder(dir)).filter((path) => !path.startsWith(`tmp${sep}uploads${sep}`));
      expect(written, `files in ${dir}`).toEqual([]);
    }
    for (const child of [api, workerB]) child.kill('SIGTERM');
    await Promise.all([exited(api), exited(workerB)]);
  }

  it(`${DOCUMENTS} documents on Azure Blobs (Azurite): all complete exactly once, queues empty, no data folder used`, {
    timeout: 200_000,
  }, async () => {
    blobs = await startAzureBlobBackend();
    await ingestWithoutSharedFolder(await startDatabase(), {
      KM_CONTENT_STORAGE: 'azureblobs',
      KM_AZURE_BLOBS_CONNECTION_STRING: blobs.connectionString,
      KM_AZURE_BLOBS_CONTAINER: `km-${randomUUID().slice(0, 8)}`,
    });
  });

  it(`${DOCUMENTS} documents on Postgres content storage: all complete exactly once, queues empty, no data folder used`, {
    timeout: 200_000,
  }, async () => {
    const database = await startDatabase();
    await ingestWithoutSharedFolder(database, { KM_CONTENT_STORAGE: 'postgres', KM_POSTGRES_URL: database.url });
  });
});
