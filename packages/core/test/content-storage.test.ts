import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskContentStorage } from '../src/index.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// The shared content storage cases run through @km/conformance in tests-integration.

describe('disk content storage', () => {
  it('leaves no temporary file behind after writes, or after a failed stream', async () => {
    const d = await mkdtemp(join(tmpdir(), 'km-cs-'));
    dirs.push(d);
    const s = new DiskContentStorage({ directory: d });
    await s.writeFile('idx', 'doc', 'ok.txt', 'fine');
    const failing = new Readable({
      read() {
        this.destroy(new Error('network cut'));
      },
    });
    await expect(s.writeFile('idx', 'doc', 'broken.txt', failing)).rejects.toThrow('network cut');
    expect(await s.fileExists('idx', 'doc', 'broken.txt')).toBe(false);
    expect(await readdir(join(d, '.km-tmp'))).toEqual([]);
    expect(await s.listIndexes()).toEqual(['idx']);
  });
});
