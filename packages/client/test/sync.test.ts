import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '@km/service/testing';
import { MemoryWebClient, MemoryWebClientError, type SyncJob } from '../src/index.js';

const KEY = 'client-sync-key-'.padEnd(40, 'x');
let service: TestService;
let root: string;
let folder: string;
let memory: MemoryWebClient;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'km-client-sync-'));
  folder = join(root, 'notes');
  await mkdir(folder);
  await writeFile(join(folder, 'mars.md'), '# Mars\n\nMars is the red planet, with the tallest volcano, Olympus Mons.');
  await writeFile(join(folder, 'venus.txt'), 'Venus is the hottest planet, under thick clouds of sulphuric acid.');
  service = await startTestService({ logLevel: 'warn', auth: { enabled: true, keys: [KEY] }, syncRoots: [root] });
  memory = new MemoryWebClient(service.url, { apiKey: KEY });
});
afterAll(async () => {
  await service?.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('MemoryWebClient sync jobs against a real km service', () => {
  it('starts a folder sync, follows it to completed with its counts, finds it in the list, and a second run changes nothing', async () => {
    const started = await memory.startSync({ index: 'planets', source: { type: 'folder', path: folder } });
    expect(started).toMatchObject({ status: 'running', index: 'planets', source: { type: 'folder', path: folder } });
    const seen: SyncJob[] = [];
    const done = await memory.waitForSync(started.jobId, { pollIntervalMs: 20, timeoutMs: 30_000, onProgress: (j) => seen.push(j) });
    expect(done).toMatchObject({ jobId: started.jobId, status: 'completed', counts: { listed: 2, added: 2, failed: 0 } });
    expect(done.report).toMatchObject({ index: 'planets', kind: 'folder', added: 2, complete: true });
    expect(seen.at(-1)?.status).toBe('completed');
    expect((await memory.getSyncJob(started.jobId)).status).toBe('completed');
    expect((await memory.listSyncJobs()).map((j) => j.jobId)).toContain(started.jobId);
    const found = await memory.search('tallest volcano', { index: 'planets', minRelevance: -1 });
    expect(found.results.map((c) => c.sourceName)).toContain('mars.md');

    const again = await memory.waitForSync((await memory.startSync({ index: 'planets', source: { type: 'folder', path: folder } })).jobId, {
      pollIntervalMs: 20,
      timeoutMs: 30_000,
    });
    expect(again.counts).toMatchObject({ listed: 2, added: 0, updated: 0, unchanged: 2, deleted: 0 });
  });

  it('gives the service refusals as typed errors: a folder outside the sync roots (403), an unknown job (404)', async () => {
    const outside = await memory.startSync({ source: { type: 'folder', path: tmpdir() } }).catch((e: unknown) => e);
    expect(outside).toBeInstanceOf(MemoryWebClientError);
    expect(outside).toMatchObject({ status: 403, message: expect.stringMatching(/KM_SYNC_ROOTS/) });
    const unknown = await memory.getSyncJob('no-such-job').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404 });
  });
});
