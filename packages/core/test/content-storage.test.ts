import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskContentStorage, MemoryContentStorage } from '../src/index.js';

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

describe('byte ranges of readFileStream', () => {
  const text = Array.from({ length: 5000 }, (_, i) => String(i % 10)).join('');
  const read = async (stream: AsyncIterable<unknown>) => {
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array));
    return Buffer.concat(chunks).toString();
  };
  it.each([
    [
      'disk',
      async () => {
        const d = await mkdtemp(join(tmpdir(), 'km-cs-'));
        dirs.push(d);
        return new DiskContentStorage({ directory: d });
      },
    ],
    ['memory', async () => new MemoryContentStorage()],
  ])('%s storage reads only the bytes of the range', async (_, create) => {
    const s = await create();
    expect(s.supportsByteRanges).toBe(true);
    await s.writeFile('idx', 'doc', 'f.txt', text);
    expect(await read(await s.readFileStream('idx', 'doc', 'f.txt', { start: 0, end: 9 }))).toBe(text.slice(0, 10));
    expect(await read(await s.readFileStream('idx', 'doc', 'f.txt', { start: 4321, end: 4321 }))).toBe(text[4321]);
    expect(await read(await s.readFileStream('idx', 'doc', 'f.txt', { start: 4990, end: 99_999 }))).toBe(text.slice(4990));
    expect(await read(await s.readFileStream('idx', 'doc', 'f.txt'))).toBe(text);
  });
});
