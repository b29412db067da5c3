import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTcpProxy, type TcpProxy } from '@km/conformance';
import type { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { DEFAULT_STEPS } from '@km/core';
import { freshPglite, startPgliteServer, type PgliteServer } from '@km/memorydb-postgres/testing';
import { QueueNames, retryDelay } from '@km/queue-rabbitmq';
import amqp from 'amqplib';
import pgDriver from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, freePort, kmEnv, startKm } from '../src/km-process.js';
import { expectOneRecordPerDocument } from '../src/record-sets.js';
import { RABBITMQ_URL, deleteQueues, rabbitMqUnavailable } from '../src/rabbitmq-broker.js';

// The distributed deployment: `km serve --no-handlers` and two `km worker`s on RabbitMQ,
// sharing one PostgreSQL + pgvector memory DB (PGlite served on a socket) and the data folder.
const DOCUMENTS = 200;
const noRabbit = await rabbitMqUnavailable();
if (noRabbit) console.log(`[km] skipped distributed ingestion on RabbitMQ: ${noRabbit}`);

interface Status {
  completed: boolean;
  failed?: boolean;
  error?: string;
}

describe.skipIf(noRabbit)('distributed ingestion on RabbitMQ with two workers', () => {
  const children: ChildProcess[] = [];
  let dataDir: string | undefined;
  let pg: PgliteServer | undefined;
  let db: PGlite | undefined;
  let sql: pgDriver.Pool | undefined;
  let proxy: TcpProxy | undefined;
  const prefix = `kmtest-${randomUUID().slice(0, 8)}.`;
  const steps = [...DEFAULT_STEPS, 'private_delete_document', 'private_delete_index', 'summarize', 'delete_generated_files'];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await proxy?.close();
    await sql?.end();
    await pg?.stop();
    await db?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    const names = steps.flatMap((s) => {
      const q = `${prefix}${s}`;
      return [q, QueueNames.poison(q), ...[1, 2, 3, 4].map((a) => QueueNames.delay(q, retryDelay(a, 1000, 60_000)))];
    });
    await deleteQueues(names);
  });

  it(`${DOCUMENTS} documents all complete, exactly once in the memory DB, through a SIGKILLed worker and a cut broker connection; a document that cannot be decoded fails into the poison queue`, {
    timeout: 240_000,
  }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'km-distributed-'));
    db = await freshPglite({ extensions: { vector } });
    pg = await startPgliteServer(db);
    // The test reads through the server too, so its queries never land inside a worker's transaction.
    sql = new pgDriver.Pool({ connectionString: pg.url, max: 1 });
    const broker = new URL(RABBITMQ_URL);
    proxy = await startTcpProxy({ host: broker.hostname, port: Number(broker.port || 5672) });
    broker.host = `127.0.0.1:${proxy.port}`;
    const env = kmEnv({
      KM_EMBEDDINGS: 'hashing',
      KM_QUEUE: 'rabbitmq',
      KM_RABBITMQ_URL: broker.toString(),
      KM_QUEUE_PREFIX: prefix,
      KM_MEMORY_DB: 'postgres',
      KM_POSTGRES_URL: pg.url,
      KM_POSTGRES_MAX_CONNECTIONS: '2',
      KM_DATA_DIR: dataDir,
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    children.push(await startKm(['serve', '--port', String(port), '--no-handlers'], 'listening on', env));
    const [workerA, workerB] = [await startKm(['worker'], 'km worker running', env), await startKm(['worker'], 'km worker running', env)];
    children.push(workerA!, workerB!);

    const ids = Array.from({ length: DOCUMENTS }, (_, i) => `doc-${String(i).padStart(3, '0')}`);
    const upload = async (id: string, file: Blob, name: string) => {
      const form = new FormData();
      form.append('documentId', id);
      form.append('file1', file, name);
      const response = await fetch(`${url}/upload`, { method: 'POST', body: form });
      expect(response.status, `upload ${id}`).toBe(202);
    };
    await upload(
      'broken',
      new Blob(['%PDF-1.7\n1 0 obj << /Type /Catalog >> this is not a PDF'], { type: 'application/pdf' }),
      'broken.pdf',
    );
    const uploading = (async () => {
      for (const id of ids)
        await upload(id, new Blob([`Document ${id} talks about item ${id} and nothing else.`], { type: 'text/plain' }), `${id}.txt`);
    })();

    const status = async (id: string): Promise<Status> => (await (await fetch(`${url}/upload-status?documentId=${id}`)).json()) as Status;
    const completedCount = async () => (await Promise.all(ids.map(status))).filter((s) => s.completed).length;
    const savedCount = async () =>
      Number(
        (await sql!.query<{ n: number }>('SELECT count(*)::int AS n FROM "km-default"').catch(() => ({ rows: [{ n: 0 }] }))).rows[0]!.n,
      );

    // Midway (a quarter of the records saved, uploads still going): kill one worker
    // outright, then cut every broker connection once (the API's and the other worker's).
    const deadline = Date.now() + 180_000;
    let saved = 0;
    while ((saved = await savedCount()) < DOCUMENTS / 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    workerA!.kill('SIGKILL');
    await exited(workerA!);
    expect(proxy.cut(), 'broker connections cut').toBeGreaterThan(0);
    expect(saved, 'records saved before the kill').toBeLessThan(DOCUMENTS);
    console.log(
      `[km] distributed ingestion: ${saved}/${DOCUMENTS} documents saved when worker A was killed and the broker connections were cut`,
    );
    await uploading;
    let done = 0;

    while ((done = await completedCount()) < DOCUMENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    if (done < DOCUMENTS) {
      // Say where the stragglers are before failing.
      for (const id of ids) {
        const s = (await (await fetch(`${url}/upload-status?documentId=${id}`)).json()) as Record<string, unknown>;
        if (!s.completed)
          console.log(
            `[km] not completed: ${id} ${JSON.stringify({ remaining: s.remaining_steps, attempts: s.step_attempts, error: s.error })}`,
          );
      }
    }
    expect(done).toBe(DOCUMENTS);

    let broken = await status('broken');
    while (!broken.failed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      broken = await status('broken');
    }
    expect(broken).toMatchObject({ completed: false, failed: true });
    expect(broken.error).toMatch(/extract/);

    // Exactly the expected records: one partition per document, with its own text, none twice.
    await expectOneRecordPerDocument(sql, 'km-default', ids);

    // The broken document's pointer sits in the extract step's poison queue; no step queue holds work.
    const connection = await amqp.connect(RABBITMQ_URL);
    try {
      const channel = await connection.createChannel();
      const poisoned: string[] = [];
      for (
        let message = await channel.get(QueueNames.poison(`${prefix}extract`));
        message;
        message = await channel.get(QueueNames.poison(`${prefix}extract`))
      ) {
        poisoned.push((JSON.parse(message.content.toString()) as { document_id: string }).document_id);
        channel.ack(message);
      }
      expect(poisoned).toContain('broken');
      expect(poisoned.every((id) => id === 'broken')).toBe(true);
      for (const step of DEFAULT_STEPS) expect((await channel.checkQueue(`${prefix}${step}`)).messageCount, `${step} queue`).toBe(0);
    } finally {
      await connection.close();
    }
  });
});
