import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
    expect(await km(['sync', 's3://bucket/prefix'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/s3:\/\//) });
    expect(await km(['sync', notes, '--concurrency', '0'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/concurrency/) });
  });
});
