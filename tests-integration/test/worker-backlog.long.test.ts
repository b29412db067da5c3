import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { freePort, kmEnv, startKm, stopProcess } from '../src/km-process.js';
import { RABBITMQ_URL, deleteQueues, rabbitMqUnavailable } from '../src/rabbitmq-broker.js';

const rabbitSkip = await rabbitMqUnavailable();
/** The queue settings of each run; a broker connects each step queue slower than a folder does, which is when the race showed. */
const queues: Array<{ name: string; skip: string | undefined; env: () => Record<string, string> }> = [
  { name: 'file queues', skip: undefined, env: () => ({}) },
  { name: 'RabbitMQ queues', skip: rabbitSkip, env: () => ({ KM_QUEUE: 'rabbitmq', KM_RABBITMQ_URL: RABBITMQ_URL }) },
];
const STEP_QUEUES = [
  'extract',
  'partition',
  'gen_embeddings',
  'save_records',
  'summarize',
  'delete_generated_files',
  'private_delete_document',
  'private_delete_index',
];
/** SIGTERM, then SIGKILL after a 10 s grace: resolves with the exit code (null when it had to be killed). */
const stop = (child: ChildProcess) => stopProcess(child);
const DOCUMENTS = 12;

describe.each(queues)('a km worker started on a queue backlog ($name)', ({ skip, env }) => {
  let dataDir: string;
  const children: ChildProcess[] = [];
  const prefix = `km-backlog-${randomUUID().slice(0, 8)}-`;
  const start = (args: string[], ready: string) =>
    startKm(args, ready, kmEnv({ KM_EMBEDDINGS: 'hashing', KM_QUEUE_PREFIX: prefix, ...env() }));
  afterAll(async () => {
    for (const c of children) await stop(c);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (!skip && env().KM_QUEUE === 'rabbitmq') await deleteQueues(STEP_QUEUES.flatMap((q) => [`${prefix}${q}`, `${prefix}${q}-poison`]));
  });

  it.skipIf(skip !== undefined)(
    `finishes every queued upload and stays alive${skip ? ` (skipped: ${skip})` : ''}`,
    { timeout: 90_000 },
    async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'km-worker-backlog-'));
      const serve = async () => {
        const port = await freePort();
        const child = await start(['serve', '--port', String(port), '--data-dir', dataDir, '--no-handlers'], 'listening on');
        children.push(child);
        return { child, url: `http://127.0.0.1:${port}` };
      };

      // An API that only queues takes the uploads, then stops: the backlog waits on disk.
      const api = await serve();
      for (let i = 0; i < DOCUMENTS; i++) {
        const form = new FormData();
        form.append('documentId', `doc-${i}`);
        form.append(
          'file1',
          new Blob([`Backlog document ${i}: comet ${i} returns every ${70 + i} years.`], { type: 'text/plain' }),
          `doc-${i}.txt`,
        );
        expect((await fetch(`${api.url}/upload`, { method: 'POST', body: form })).status).toBe(202);
      }
      expect(await stop(api.child)).toBe(0);

      const worker = await start(['worker', '--data-dir', dataDir], 'km worker running');
      children.push(worker);
      const reader = await serve();
      const pending = new Set(Array.from({ length: DOCUMENTS }, (_, i) => `doc-${i}`));
      const deadline = Date.now() + 60_000;
      while (pending.size > 0 && Date.now() < deadline && worker.exitCode === null) {
        for (const id of [...pending]) {
          const status = (await (await fetch(`${reader.url}/upload-status?documentId=${id}`)).json()) as {
            completed: boolean;
            failed?: boolean;
          };
          expect(status.failed ?? false).toBe(false);
          if (status.completed) pending.delete(id);
        }
        if (pending.size > 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect({ workerExitCode: worker.exitCode, pending: [...pending] }).toEqual({ workerExitCode: null, pending: [] });

      const search = await fetch(`${reader.url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'comet 7 returns', limit: 100 }),
      });
      const result = (await search.json()) as { results: Array<{ documentId: string }> };
      expect(new Set(result.results.map((r) => r.documentId)).size).toBe(DOCUMENTS);
      // Still alive after the backlog; it stops cleanly when asked.
      await new Promise((r) => setTimeout(r, 300));
      expect(worker.exitCode).toBe(null);
      for (const c of children.splice(0)) expect(await stop(c)).toBe(0);
    },
  );
});
