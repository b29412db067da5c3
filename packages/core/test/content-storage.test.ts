import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskContentStorage, MemoryContentStorage, isKmError, type IContentStorage } from '../src/index.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const implementations: Record<string, () => Promise<IContentStorage>> = {
  memory: async () => new MemoryContentStorage(),
  disk: async () => {
    const d = await mkdtemp(join(tmpdir(), 'km-cs-'));
    dirs.push(d);
    return new DiskContentStorage({ directory: d });
  },
};

for (const [name, factory] of Object.entries(implementations)) {
  describe(`${name} content storage`, () => {
    it('writes, reads, lists and deletes files', async () => {
      const s = await factory();
      expect(await s.writeFile('idx', 'doc-1', 'a.txt', 'hello')).toBe(5);
      await s.writeFile('idx', 'doc-1', 'b.bin', new Uint8Array([1, 2, 3]));
      expect((await s.readFile('idx', 'doc-1', 'a.txt')).toString()).toBe('hello');
      expect((await s.listFiles('idx', 'doc-1')).map((f) => [f.name, f.size])).toEqual([['a.txt', 5], ['b.bin', 3]]);
      expect(await s.listDocuments('idx')).toEqual(['doc-1']);
      expect(await s.listIndexes()).toEqual(['idx']);
      await s.deleteFile('idx', 'doc-1', 'a.txt');
      await s.deleteFile('idx', 'doc-1', 'a.txt');
      expect(await s.fileExists('idx', 'doc-1', 'a.txt')).toBe(false);
      await s.deleteDocumentDirectory('idx', 'doc-1');
      expect(await s.listFiles('idx', 'doc-1')).toEqual([]);
      await s.deleteIndexDirectory('idx');
      expect(await s.listIndexes()).toEqual([]);
    });

    it('streams a large file in and out unchanged', async () => {
      const s = await factory();
      const big = Buffer.alloc(5 * 1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
      const chunks = Array.from({ length: 80 }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536));
      await s.writeFile('idx', 'doc', 'big.bin', Readable.from(chunks));
      const back: Buffer[] = [];
      for await (const c of await s.readFileStream('idx', 'doc', 'big.bin')) back.push(c as Buffer);
      expect(Buffer.concat(back).equals(big)).toBe(true);
    });

    it('overwrites a file in place', async () => {
      const s = await factory();
      await s.writeFile('idx', 'doc', 'f.txt', 'one');
      await s.writeFile('idx', 'doc', 'f.txt', 'two');
      expect((await s.readFile('idx', 'doc', 'f.txt')).toString()).toBe('two');
    });

    it('a missing file gives file_not_found', async () => {
      const s = await factory();
      await expect(s.readFile('idx', 'doc', 'nope.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
      await expect(s.readFileStream('idx', 'doc', 'nope.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
    });

    it.each([
      ['idx', '..', 'f'],
      ['idx', 'doc', '../../etc/passwd'],
      ['idx', 'doc/../x', 'f'],
      ['..', 'doc', 'f'],
      ['IDX', 'doc', 'f'],
      ['idx', 'doc', 'a/b'],
      ['idx', 'doc', 'a\\b'],
    ])('refuses names that try to escape the folder: %s / %s / %s', async (index, doc, file) => {
      const s = await factory();
      await expect(s.writeFile(index, doc, file, 'x')).rejects.toSatisfy((e: unknown) => isKmError(e));
      expect(await s.listIndexes()).toEqual([]);
    });
  });
}

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
