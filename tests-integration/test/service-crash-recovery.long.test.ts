import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimpleVectorDb, type MemoryRecord } from '@km/core';
import { exited, freePort, kmEnv, startKm } from '../src/km-process.js';

const DOCUMENTS = 50;

/** `km serve` in its own process, on the embedded defaults (local embedding model, file queue). */
const serve = (dataDir: string, port: number) =>
  startKm(['serve', '--port', String(port), '--data-dir', dataDir], 'km service listening on', kmEnv({ KM_QUEUE_CONCURRENCY: '1' }));

describe('the service killed with SIGKILL mid-ingestion', () => {
  let dataDir: string;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(`finishes all ${DOCUMENTS} queued documents after a restart, each indexed exactly once`, { timeout: 240_000 }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'km-crash-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = await serve(dataDir, port);
    children.push(first);

    const ids = Array.from({ length: DOCUMENTS }, (_, i) => `doc-${String(i).padStart(2, '0')}`);
    for (const [i, id] of ids.entries()) {
      const form = new FormData();
      form.append('documentId', id);
      form.append('tags', `n:${i}`);
      form.append(
        'file1',
        new Blob([`Document ${i}. Fact number ${i}: the crash test keeps every document exactly once.`], { type: 'text/plain' }),
        `${id}.txt`,
      );
      const res = await fetch(`${url}/upload`, { method: 'POST', body: form });
      expect(res.status).toBe(202);
    }
    const completedBefore = await countCompleted(url, ids);
    first.kill('SIGKILL');
    await exited(first);
    expect(first.signalCode).toBe('SIGKILL');
    expect(completedBefore).toBeLessThan(DOCUMENTS); // the kill really hit queued work

    const second = await serve(dataDir, port);
    children.push(second);
    const deadline = Date.now() + 180_000;
    let completed = 0;
    while ((completed = await countCompleted(url, ids)) < DOCUMENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(completed).toBe(DOCUMENTS);
    second.kill('SIGTERM');
    await exited(second);
    expect(second.exitCode).toBe(0);

    const db = new SimpleVectorDb({ directory: join(dataDir, 'vectors') });
    const records: MemoryRecord[] = [];
    for await (const r of db.getList('default', { limit: 0 })) records.push(r);
    await db.close();
    const documentOf = (r: MemoryRecord) => r.tags.__document_id?.[0];
    expect(records).toHaveLength(DOCUMENTS);
    expect(new Set(records.map((r) => r.id)).size).toBe(DOCUMENTS);
    expect(records.map(documentOf).sort()).toEqual(ids);
    for (const queue of await readdir(join(dataDir, 'queues'))) {
      expect({ queue, ready: await readdir(join(dataDir, 'queues', queue, 'ready')) }).toEqual({ queue, ready: [] });
    }
  });
});

async function countCompleted(url: string, ids: string[]): Promise<number> {
  let completed = 0;
  for (const id of ids) {
    const res = await fetch(`${url}/upload-status?documentId=${id}`);
    if (res.status === 200 && ((await res.json()) as { completed: boolean }).completed) completed++;
  }
  return completed;
}
