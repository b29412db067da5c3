// The fresh-process timings of the index-load measurement (node --test).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as core from '@km/core';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('../lib/load-child.mjs', import.meta.url));

async function withIndex(records, body) {
  const directory = await mkdtemp(join(tmpdir(), 'km-load-child-'));
  try {
    const db = new core.SimpleVectorDb({ directory, durable: false, scanThreads: 0 });
    await db.upsertBatch(
      'bench',
      Array.from({ length: records }, (_, i) => ({ id: `r${i}`, vector: [i + 1, 1, 2, 3], tags: {}, payload: { n: i } })),
    );
    await db.close();
    await body(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

test('readfile times one read of the file and prints it as JSON', async () => {
  await withIndex(5, async (directory) => {
    const { stdout } = await run(process.execPath, [CHILD, 'readfile', join(directory, 'bench', 'records.log')]);
    const { ms } = JSON.parse(stdout);
    assert.equal(typeof ms, 'number');
    assert.ok(ms >= 0);
  });
});

test('readfile reads every file it is given (a base file and a log)', async () => {
  await withIndex(5, async (directory) => {
    const log = join(directory, 'bench', 'records.log');
    const { stdout } = await run(process.execPath, [CHILD, 'readfile', join(directory, 'bench', 'index.json'), log]);
    assert.ok(JSON.parse(stdout).ms >= 0);
    await assert.rejects(run(process.execPath, [CHILD, 'readfile', log, join(directory, 'bench', 'missing')]), /ENOENT/);
  });
});

test('open loads the index in a fresh process, checks its count and times the first search', async () => {
  await withIndex(7, async (directory) => {
    const options = JSON.stringify({ quantization: 'int8', scanThreads: 0 });
    const { stdout } = await run(process.execPath, [CHILD, 'open', directory, 'bench', options, '7', '4']);
    const timing = JSON.parse(stdout);
    assert.ok(timing.ms >= 0 && timing.firstSearchMs >= 0);
    // A count other than what was written fails the child, so a broken load is not timed.
    await assert.rejects(run(process.execPath, [CHILD, 'open', directory, 'bench', options, '8', '4']), /holds 7 records, wrote 8/);
  });
});
