import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '@km/service/testing';
import { km } from './helpers.js';

const SUMMARY = /^added (\d+), updated (\d+), unchanged (\d+), deleted (\d+), failed (\d+) in \d+\.\d s/m;
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-sync-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A fresh folder of notes and a data folder beside it. */
async function fixture(name: string): Promise<{ notes: string; data: string }> {
  const notes = join(dir, name, 'notes');
  await mkdir(notes, { recursive: true });
  await writeFile(join(notes, 'mars.md'), '# Mars\n\nMars has the tallest volcano, Olympus Mons.');
  await writeFile(join(notes, 'venus.txt'), 'Venus is the hottest planet.');
  await writeFile(join(notes, 'moon.txt'), 'The Moon orbits the Earth.');
  return { notes, data: join(dir, name, 'data') };
}

function counts(stdout: string): number[] {
  const match = SUMMARY.exec(stdout);
  if (!match) throw new Error(`no summary in ${JSON.stringify(stdout)}`);
  return match.slice(1).map(Number);
}

describe('km sync <folder> in local mode', () => {
  it('ingests the folder, then only what changed: edited, added and removed files, with a line per item on stderr', async () => {
    const { notes, data } = await fixture('local');
    const first = await km(['sync', notes, '--data-dir', data, '--index', 'planets']);
    expect(first.code).toBe(0);
    expect(counts(first.stdout)).toEqual([3, 0, 0, 0, 0]);
    expect(
      first.stderr
        .split('\n')
        .filter((l) => l.startsWith('added '))
        .sort(),
    ).toEqual(['added mars.md', 'added moon.txt', 'added venus.txt']);

    await writeFile(join(notes, 'venus.txt'), 'Venus is the hottest planet, under clouds of acid.');
    await writeFile(join(notes, 'earth.txt'), 'The Earth has one moon.');
    await rm(join(notes, 'moon.txt'));
    const second = await km(['sync', notes, '--data-dir', data, '--index', 'planets', '--json']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      kind: 'folder',
      index: 'planets',
      listed: 3,
      added: 1,
      updated: 1,
      unchanged: 1,
      deleted: 1,
      failed: 0,
      complete: true,
    });

    const search = await km([
      'search',
      'hottest planet clouds of acid',
      '--data-dir',
      data,
      '--index',
      'planets',
      '--json',
      '--min-relevance',
      '-1',
    ]);
    const names = (JSON.parse(search.stdout) as { results: Array<{ sourceName: string }> }).results.map((r) => r.sourceName);
    expect(names.sort()).toEqual(['earth.txt', 'mars.md', 'venus.txt']);
  });

  it('keeps the documents of removed files with --no-delete, and syncs only --include files', async () => {
    const { notes, data } = await fixture('options');
    expect(counts((await km(['sync', notes, '--data-dir', data, '--include', '**/*.txt'])).stdout)).toEqual([2, 0, 0, 0, 0]);
    await rm(join(notes, 'moon.txt'));
    expect(counts((await km(['sync', notes, '--data-dir', data, '--include', '**/*.txt', '--no-delete'])).stdout)).toEqual([0, 0, 1, 0, 0]);
    expect(counts((await km(['sync', notes, '--data-dir', data, '--include', '**/*.txt'])).stdout)).toEqual([0, 0, 1, 1, 0]);
  });

  it('exits non-zero when an item fails, naming it and the reason', async () => {
    const { notes, data } = await fixture('failing');
    await writeFile(join(notes, 'blob.dat'), Buffer.from([0, 1, 2, 0, 3]));
    const run = await km(['sync', notes, '--data-dir', data]);
    expect(run.code).toBe(2);
    expect(counts(run.stdout)).toEqual([3, 0, 0, 0, 1]);
    expect(run.stdout).toMatch(/^failed blob\.dat: .+/m);
  });

  it('with --watch, syncs again after a change, printing a summary per run, until Ctrl-C', async () => {
    const { notes, data } = await fixture('watch');
    const child = spawn(process.execPath, [BIN, 'sync', notes, '--data-dir', data, '--watch'], {
      env: { ...process.env, KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await vi.waitFor(() => expect(stdout).toMatch(SUMMARY), { timeout: 60_000, interval: 100 });
      expect(counts(stdout)).toEqual([3, 0, 0, 0, 0]);
      expect(stderr).toMatch(/watching .*notes for changes/);
      await writeFile(join(notes, 'mars.md'), '# Mars\n\nMars has two small moons, Phobos and Deimos.');
      await vi.waitFor(() => expect(stdout).toMatch(/^added 0, updated 1, unchanged 2, deleted 0, failed 0/m), {
        timeout: 60_000,
        interval: 100,
      });
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('km sync refusals', () => {
  it('refuses a local folder with --url: the service cannot read this machine, and KM_SYNC_ROOTS is named', async () => {
    const { notes } = await fixture('remote');
    const run = await km(['sync', notes, '--url', 'http://127.0.0.1:9']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot read the folders of this machine.*KM_SYNC_ROOTS/);
  });

  it('refuses options that do not fit the source', async () => {
    const { notes } = await fixture('usage');
    expect(await km(['sync', notes, '--max-pages', '3'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--max-pages are for web sites/),
    });
    expect(await km(['sync', 'https://example.com/', '--watch', '--url', 'http://127.0.0.1:9'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--watch is for folders/),
    });
    expect(await km(['sync', 's3://bucket/prefix', '--url', 'http://127.0.0.1:9'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/buckets are synced in this process/),
    });
    expect(await km(['sync', 'ftp://host/x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/ftp:\/\//) });
    expect(await km(['sync', notes, '--concurrency', '0'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/concurrency/) });
  });
});

describe('km sync <url>', () => {
  let server: Server;
  let site: string;
  let service: TestService;
  const KEY = 'cli-sync-key-'.padEnd(40, 'k');
  beforeAll(async () => {
    const pages: Record<string, string> = {
      '/docs/': '<html><body><a href="comets.html">Comets</a> <a href="tides.html">Tides</a></body></html>',
      '/docs/comets.html': '<html><body><p>Comets have tails of gas and dust.</p></body></html>',
      '/docs/tides.html': '<html><body><p>Tides are raised by the Moon.</p></body></html>',
    };
    server = createServer((req, res) => {
      const page = pages[req.url ?? ''];
      res.writeHead(page ? 200 : 404, { 'content-type': page ? 'text/html' : 'text/plain' });
      res.end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs/`;
    service = await startTestService({ logLevel: 'silent', auth: { enabled: true, keys: [KEY] }, web: { allowPrivateNetworks: true } });
  });
  afterAll(async () => {
    await service?.dispose();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('with --url, has the service sync the site as a job and prints its summary', async () => {
    const run = await km(['sync', site, '--url', service.url, '--key', KEY, '--index', 'site', '--max-pages', '10']);
    expect(run.code).toBe(0);
    expect(counts(run.stdout)).toEqual([3, 0, 0, 0, 0]);
    const again = await km(['sync', site, '--url', service.url, '--key', KEY, '--index', 'site', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ kind: 'web', listed: 3, added: 0, unchanged: 3 });
  });

  it('in local mode, syncs the site into the data folder when KM_WEB_ALLOW_PRIVATE_NETWORKS allows its address, and refuses it otherwise', async () => {
    const data = join(dir, 'web-data');
    const env = { ...process.env, KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '' };
    const allowed = await km(['sync', site, '--data-dir', data], { ...env, KM_WEB_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(allowed.code).toBe(0);
    expect(counts(allowed.stdout)).toEqual([3, 0, 0, 0, 0]);
    const refused = await km(['sync', site, '--data-dir', data], env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/incomplete: nothing deleted/);
    expect(refused.stdout).toMatch(/^failed \(listing\): .*(private|loopback)/im);
  });
});
