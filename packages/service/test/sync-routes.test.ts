import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SyncJob, SyncJobList } from '@km/wire';
import { expectProblem, startTestService, type TestService } from './helpers.js';

const KEY = 'sync-routes-key-'.padEnd(40, 'x');
const auth = { authorization: KEY };
const json = { ...auth, 'content-type': 'application/json' };

let base: string;
let root: string;
let outside: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'km-sync-routes-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(join(root, 'notes'), { recursive: true });
  await mkdir(join(root, 'many'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(root, 'notes', 'mars.md'), '# Mars\n\nMars has the tallest volcano of the solar system, Olympus Mons.');
  await writeFile(join(root, 'notes', 'venus.txt'), 'Venus is the hottest planet, under thick clouds of sulphuric acid.');
  await writeFile(join(root, 'notes', 'moon.txt'), 'The Moon orbits the Earth at about 384,400 km.');
  for (let i = 0; i < 60; i++) await writeFile(join(root, 'many', `note-${i}.txt`), `Note number ${i} about nothing in particular.`);
  await writeFile(join(outside, 'secret.txt'), 'not for syncing');
  // A link inside the root that points out of it.
  await symlink(outside, join(root, 'escape'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

const post = (service: TestService, body: unknown) =>
  fetch(`${service.url}/sync`, { method: 'POST', headers: json, body: typeof body === 'string' ? body : JSON.stringify(body) });
const getJob = async (service: TestService, jobId: string, headers: Record<string, string> = auth) =>
  (await (await fetch(`${service.url}/sync/${jobId}`, { headers })).json()) as SyncJob;
async function finished(service: TestService, jobId: string, headers: Record<string, string> = auth): Promise<SyncJob> {
  let job: SyncJob | undefined;
  await vi.waitFor(
    async () => {
      job = await getJob(service, jobId, headers);
      expect(job.status).not.toBe('running');
    },
    { timeout: 60_000, interval: 50 },
  );
  return job!;
}

describe('sync jobs with KM_SYNC_ROOTS set', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ logLevel: 'warn', auth: { enabled: true, keys: [KEY] }, syncRoots: [root] });
  });
  afterAll(() => service?.dispose());

  it('runs a folder sync to completed with its counts and report, and lists it; the documents are searchable', async () => {
    const res = await post(service, {
      index: 'planets',
      tags: { origin: ['sync'] },
      source: { type: 'folder', path: join(root, 'notes') },
    });
    expect(res.status).toBe(202);
    const started = (await res.json()) as SyncJob;
    expect(res.headers.get('location')).toBe(`/sync/${started.jobId}`);
    expect(started).toMatchObject({
      status: 'running',
      index: 'planets',
      source: { type: 'folder' },
      sourceId: expect.stringMatching(/^folder:/),
    });
    const job = await finished(service, started.jobId);
    expect(job).toMatchObject({ status: 'completed', phase: 'done', counts: { listed: 3, added: 3, updated: 0, deleted: 0, failed: 0 } });
    expect(job.report).toMatchObject({ kind: 'folder', index: 'planets', added: 3, complete: true, failures: [] });
    expect(job.finishedAt).toEqual(expect.any(String));

    const list = (await (await fetch(`${service.url}/sync`, { headers: auth })).json()) as SyncJobList;
    expect(list.jobs.map((j) => j.jobId)).toContain(started.jobId);

    const search = await fetch(`${service.url}/search`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ index: 'planets', query: 'tallest volcano', minRelevance: -1, filters: [{ origin: ['sync'] }] }),
    });
    const found = (await search.json()) as { results: Array<{ sourceName: string }> };
    expect(found.results.map((r) => r.sourceName).sort()).toEqual(['mars.md', 'moon.txt', 'venus.txt']);

    // Run again after one file went away: one deleted, the others unchanged.
    await rm(join(root, 'notes', 'moon.txt'));
    const again = await finished(
      service,
      ((await (await post(service, { index: 'planets', source: { type: 'folder', path: join(root, 'notes') } })).json()) as SyncJob).jobId,
    );
    expect(again.counts).toMatchObject({ listed: 2, added: 0, unchanged: 2, deleted: 1 });
  });

  it('refuses a folder outside the roots (403), also through a symbolic link or `..`, whether it exists or not', async () => {
    for (const path of [outside, join(root, 'escape'), join(root, '..', 'outside'), join(base, 'nowhere')]) {
      const body = await expectProblem(await post(service, { source: { type: 'folder', path } }), 403, /KM_SYNC_ROOTS/);
      expect(body.code).toBe('sync_folder_not_allowed');
    }
  });

  it('answers bad bodies with 400 ProblemDetails naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      ['not json', /JSON|body/i],
      [[], /JSON object/],
      [{}, /'source'/],
      [{ source: { type: 'ftp', path: '/x' } }, /ftp/],
      [{ source: { type: 'folder' } }, /source\.path/],
      [{ source: { type: 'folder', path: root, include: [''] } }, /source\.include/],
      [{ source: { type: 'folder', path: root }, deleteMissing: 'yes' }, /deleteMissing/],
      [{ source: { type: 'folder', path: root }, concurrency: 0 }, /concurrency/],
      [{ source: { type: 'folder', path: root }, tags: { __sync_source: ['x'] } }, /tags/],
      [{ source: { type: 'folder', path: root }, index: 'bad index*' }, /index/i],
      [{ source: { type: 'folder', path: root }, extra: 1 }, /extra/],
      [{ source: { type: 'folder', path: join(root, 'notes', 'mars.md') } }, /not a folder/],
      [{ source: { type: 'folder', path: join(root, 'missing') } }, /no folder/],
    ];
    for (const [body, detail] of cases) {
      const res = await post(service, body);
      if (res.status !== 400) throw new Error(`${JSON.stringify(body)} answered ${res.status}: ${await res.text()}`);
      await expectProblem(res, 400, detail);
    }
    const unsupported = await expectProblem(await post(service, { source: { type: 's3', bucket: 'b' } }), 400);
    expect(unsupported.code).toBe('unsupported_source');
  });

  it('cancels a running job: it turns cancelled, with a report that is not complete; a second start of the same source gets 409 meanwhile', async () => {
    const res = await post(service, { index: 'many', concurrency: 1, source: { type: 'folder', path: join(root, 'many') } });
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as SyncJob;
    const busy = await expectProblem(
      await post(service, { index: 'many', source: { type: 'folder', path: join(root, 'many') } }),
      409,
      new RegExp(jobId),
    );
    expect(busy.code).toBe('sync_busy');
    const cancel = await fetch(`${service.url}/sync/${jobId}`, { method: 'DELETE', headers: auth });
    expect(cancel.status).toBe(202);
    const job = await finished(service, jobId);
    expect(job.status).toBe('cancelled');
    expect(job.report?.complete).toBe(false);
    expect(job.counts.added).toBeLessThan(60);
    // Cancelling a finished job changes nothing.
    const again = await fetch(`${service.url}/sync/${jobId}`, { method: 'DELETE', headers: auth });
    expect(again.status).toBe(200);
    expect(((await again.json()) as SyncJob).status).toBe('cancelled');
  });

  it('answers 404 for an unknown job, to GET and DELETE', async () => {
    await expectProblem(await fetch(`${service.url}/sync/nope`, { headers: auth }), 404, /nope/);
    await expectProblem(await fetch(`${service.url}/sync/nope`, { method: 'DELETE', headers: auth }), 404);
  });

  it('needs the access key like every write route', async () => {
    await expectProblem(await fetch(`${service.url}/sync`, { method: 'POST', body: '{}' }), 401);
    await expectProblem(await fetch(`${service.url}/sync`), 401);
  });

  it('describes the routes in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`, { headers: auth })).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/sync'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/sync/{jobId}'] ?? {}).sort()).toEqual(['delete', 'get']);
  });
});

describe('sync jobs when the service stops', () => {
  it('cancels a running job and waits for it: the service closes with the job cancelled', async () => {
    const service = await startTestService({ logLevel: 'warn', syncRoots: [root] });
    let jobs: { get(id: string): SyncJob | undefined } | undefined;
    try {
      const res = await fetch(`${service.url}/sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ index: 'stopping', concurrency: 1, source: { type: 'folder', path: join(root, 'many') } }),
      });
      expect(res.status).toBe(202);
      const { jobId } = (await res.json()) as SyncJob;
      jobs = service.app.syncJobs;
      await service.dispose();
      expect(jobs?.get(jobId)?.status).toBe('cancelled');
    } finally {
      await service.dispose();
    }
  });
});

describe('sync jobs without KM_SYNC_ROOTS', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ logLevel: 'warn' });
  });
  afterAll(() => service?.dispose());

  it('refuses every folder sync with 403 naming the setting', async () => {
    const body = await expectProblem(
      await fetch(`${service.url}/sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ source: { type: 'folder', path: root } }),
      }),
      403,
      /KM_SYNC_ROOTS/,
    );
    expect(body.code).toBe('sync_folder_not_allowed');
  });
});

/** A small site on 127.0.0.1: a start page linking two pages. */
async function startSite(): Promise<{ url: string; server: Server }> {
  const pages: Record<string, string> = {
    '/docs/': '<html><body><h1>Docs</h1><a href="/docs/comets.html">Comets</a> <a href="/docs/tides.html">Tides</a></body></html>',
    '/docs/comets.html': '<html><body><p>Comets have tails of gas and dust pointing away from the Sun.</p></body></html>',
    '/docs/tides.html': '<html><body><p>Tides are raised by the pull of the Moon.</p></body></html>',
  };
  const server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': page ? 'text/html; charset=utf-8' : 'text/plain' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs/`, server };
}

describe('web sync jobs', () => {
  let site: { url: string; server: Server };
  let open: TestService;
  let guarded: TestService;
  beforeAll(async () => {
    site = await startSite();
    open = await startTestService({ logLevel: 'warn', web: { allowPrivateNetworks: true } });
    guarded = await startTestService({ logLevel: 'warn' });
  });
  afterAll(async () => {
    await open?.dispose();
    await guarded?.dispose();
    await new Promise((resolve) => site?.server.close(resolve));
  });

  it('syncs the pages linked under the start URL when KM_WEB_ALLOW_PRIVATE_NETWORKS allows the address', async () => {
    const res = await fetch(`${open.url}/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index: 'site', source: { type: 'web', url: site.url, maxPages: 10 } }),
    });
    expect(res.status).toBe(202);
    const job = await finished(open, ((await res.json()) as SyncJob).jobId, {});
    expect(job).toMatchObject({
      status: 'completed',
      sourceId: expect.stringContaining('127.0.0.1'),
      counts: { listed: 3, added: 3, failed: 0 },
    });
  });

  it('fails the job, deleting nothing, when the address guard refuses the site (the default)', async () => {
    const res = await fetch(`${guarded.url}/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source: { type: 'web', url: site.url } }),
    });
    expect(res.status).toBe(202);
    const job = await finished(guarded, ((await res.json()) as SyncJob).jobId, {});
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/private|loopback|allowPrivate/i);
    expect(job.report).toMatchObject({ complete: false, deleted: 0 });
  });

  it('refuses a web source that is not an http(s) URL, or a bad maxPages', async () => {
    for (const source of [
      { type: 'web', url: 'ftp://x/' },
      { type: 'web', url: site.url, maxPages: 0 },
      { type: 'web', url: site.url, sitemap: 'x' },
    ]) {
      await expectProblem(
        await fetch(`${open.url}/sync`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ source }),
        }),
        400,
      );
    }
  });
});
