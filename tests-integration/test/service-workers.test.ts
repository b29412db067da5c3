import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, kmEnv, startKm } from '../src/km-process.js';

const start = (args: string[], ready: string) => startKm(args, ready, kmEnv({ KM_EMBEDDINGS: 'hashing' }));

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

describe('km serve --no-handlers with a km worker in another process', () => {
  let dataDir: string;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) await stop(c);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('the API only queues; the worker ingests; the API searches what the worker wrote', { timeout: 60_000 }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'km-workers-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    children.push(await start(['serve', '--port', String(port), '--data-dir', dataDir, '--no-handlers'], 'listening on'));

    const form = new FormData();
    form.append('documentId', 'comet');
    form.append('file1', new Blob(['Halley comet returns every 76 years.'], { type: 'text/plain' }), 'comet.txt');
    expect((await fetch(`${url}/upload`, { method: 'POST', body: form })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 500));
    const queued = (await (await fetch(`${url}/upload-status?documentId=comet`)).json()) as {
      completed: boolean;
      remaining_steps: string[];
    };
    expect(queued).toMatchObject({ completed: false, remaining_steps: ['extract', 'partition', 'gen_embeddings', 'save_records'] });

    children.push(await start(['worker', '--data-dir', dataDir], 'km worker running'));
    const deadline = Date.now() + 30_000;
    let completed = false;
    while (!completed && Date.now() < deadline) {
      completed = ((await (await fetch(`${url}/upload-status?documentId=comet`)).json()) as { completed: boolean }).completed;
      if (!completed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(completed).toBe(true);

    const search = await fetch(`${url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Halley comet years' }),
    });
    const result = (await search.json()) as { results: Array<{ documentId: string }> };
    expect(result.results.map((r) => r.documentId)).toEqual(['comet']);

    const del = await fetch(`${url}/documents?documentId=comet`, { method: 'DELETE' });
    expect(del.status).toBe(202);
    const until = Date.now() + 30_000;
    while ((await fetch(`${url}/upload-status?documentId=comet`)).status !== 404 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    const after = (await (
      await fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Halley comet years' }),
      })
    ).json()) as { results: unknown[] };
    expect(after.results).toEqual([]);
    for (const c of children.splice(0)) expect(await stop(c)).toBe(0);
  });
});
