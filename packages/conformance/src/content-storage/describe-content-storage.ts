import { Readable } from 'node:stream';
import { DerivedFileNames, isKmError, LEGACY_PIPELINE_STATUS_FILE, PIPELINE_STATUS_FILE, type IContentStorage } from '@km/core';
import { afterEach, expect, it } from 'vitest';
import { randomName } from '../util/async.js';
import { describeSuite } from '../util/describe-suite.js';
import { conditionalWriteCases } from './conditional-write-cases.js';
import { documentPagingCases } from './document-paging-cases.js';

/** How the suite gets content storage instances. */
export interface ContentStorageSuiteOptions {
  create: () => Promise<IContentStorage> | IContentStorage;
  dispose?: (storage: IContentStorage) => Promise<void> | void;
  /** Size of the large-file case, in bytes. @default 8 MiB */
  largeFileBytes?: number;
  skip?: string | false;
}

const readAll = async (stream: AsyncIterable<unknown>): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
};

/**
 * The content storage conformance suite: write/read/list/delete, streams, large files,
 * missing files, km's own file names (`..km.*`) next to uploads named like km's files of
 * earlier versions, names that try to escape their folder, and conditional writes and pages of
 * document ids (for storages that offer them).
 *
 * ```ts
 * describeContentStorage('disk', { create: () => new DiskContentStorage({ directory: tmp }) });
 * ```
 */
export function describeContentStorage(name: string, options: ContentStorageSuiteOptions): void {
  describeSuite(`IContentStorage conformance: ${name}`, options.skip, () => {
    const used: Array<{ storage: IContentStorage; index: string }> = [];
    afterEach(async () => {
      for (const { storage, index } of used.splice(0)) {
        await storage.deleteIndexDirectory(index).catch(() => undefined);
        await options.dispose?.(storage);
      }
    });
    const fresh = async () => {
      const storage = await options.create();
      const index = randomName('km-conf');
      used.push({ storage, index });
      return { s: storage, index };
    };

    it('writes, reads, lists and deletes files, documents and indexes', async () => {
      const { s, index } = await fresh();
      expect(await s.writeFile(index, 'doc-1', 'a.txt', 'hello')).toBe(5);
      await s.writeFile(index, 'doc-1', 'b.bin', new Uint8Array([1, 2, 3]));
      await s.writeFile(index, 'doc-2', 'c.txt', 'x');
      expect((await s.readFile(index, 'doc-1', 'a.txt')).toString()).toBe('hello');
      expect((await s.listFiles(index, 'doc-1')).map((f) => [f.name, f.size])).toEqual([
        ['a.txt', 5],
        ['b.bin', 3],
      ]);
      expect(await s.listDocuments(index)).toEqual(['doc-1', 'doc-2']);
      expect(await s.listIndexes()).toContain(index);
      expect(await s.fileExists(index, 'doc-1', 'a.txt')).toBe(true);
      await s.deleteFile(index, 'doc-1', 'a.txt');
      await s.deleteFile(index, 'doc-1', 'a.txt');
      expect(await s.fileExists(index, 'doc-1', 'a.txt')).toBe(false);
      await s.emptyDocumentDirectory(index, 'doc-1');
      expect(await s.listFiles(index, 'doc-1')).toEqual([]);
      await s.deleteDocumentDirectory(index, 'doc-2');
      expect(await s.listDocuments(index)).not.toContain('doc-2');
      await s.deleteIndexDirectory(index);
      expect(await s.listIndexes()).not.toContain(index);
    });

    it('overwrites a file', async () => {
      const { s, index } = await fresh();
      await s.writeFile(index, 'doc', 'f.txt', 'one');
      await s.writeFile(index, 'doc', 'f.txt', 'two');
      expect((await s.readFile(index, 'doc', 'f.txt')).toString()).toBe('two');
    });

    it('reads a byte range when the storage supports ranges, otherwise the whole file', async () => {
      const { s, index } = await fresh();
      const text = 'abcdefghijklmnopqrstuvwxyz'.repeat(100);
      await s.writeFile(index, 'doc', 'r.txt', text);
      const read = (await readAll(await s.readFileStream(index, 'doc', 'r.txt', { start: 30, end: 39 }))).toString();
      expect(read).toBe(s.supportsByteRanges ? text.slice(30, 40) : text);
      if (s.supportsByteRanges) {
        expect(
          (await readAll(await s.readFileStream(index, 'doc', 'r.txt', { start: text.length - 5, end: text.length + 100 }))).toString(),
        ).toBe(text.slice(-5));
      }
    });

    it('streams a large file in and out unchanged', async () => {
      const { s, index } = await fresh();
      const size = options.largeFileBytes ?? 8 * 1024 * 1024;
      const big = Buffer.alloc(size);
      for (let i = 0; i < size; i++) big[i] = (i * 31 + (i >> 11)) % 251;
      const chunks: Buffer[] = [];
      for (let i = 0; i < size; i += 64 * 1024) chunks.push(big.subarray(i, i + 64 * 1024));
      expect(await s.writeFile(index, 'doc', 'big.bin', Readable.from(chunks))).toBe(size);
      expect((await readAll(await s.readFileStream(index, 'doc', 'big.bin'))).equals(big)).toBe(true);
      expect((await s.readFile(index, 'doc', 'big.bin')).equals(big)).toBe(true);
    });

    it('a missing file gives file_not_found; listing a missing document or index gives nothing', async () => {
      const { s, index } = await fresh();
      await expect(s.readFile(index, 'doc', 'nope.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
      await expect(s.readFileStream(index, 'doc', 'nope.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
      expect(await s.listFiles(index, 'nope')).toEqual([]);
      expect(await s.listDocuments(index)).toEqual([]);
      await s.deleteDocumentDirectory(index, 'nope');
      await s.deleteIndexDirectory(index);
    });

    it('a stream that fails leaves no file behind', async () => {
      const { s, index } = await fresh();
      async function* failing() {
        yield Buffer.from('partial');
        throw new Error('connection reset');
      }
      await expect(s.writeFile(index, 'doc', 'cut.txt', failing())).rejects.toThrow('connection reset');
      expect(await s.fileExists(index, 'doc', 'cut.txt')).toBe(false);
    });

    it("keeps km's own files (..km.*) apart from uploads named like them", async () => {
      const { s, index } = await fresh();
      const embedding = DerivedFileNames.embedding(DerivedFileNames.partition('a.txt', 0), 'model');
      const names = [
        'a.txt',
        'a.txt.extract.txt',
        LEGACY_PIPELINE_STATUS_FILE,
        PIPELINE_STATUS_FILE,
        DerivedFileNames.extractedText('a.txt'),
        embedding,
      ];
      for (const name of names) await s.writeFile(index, 'doc', name, `content of ${name}`);
      for (const name of names) expect((await s.readFile(index, 'doc', name)).toString()).toBe(`content of ${name}`);
      expect((await s.listFiles(index, 'doc')).map((f) => f.name).sort()).toEqual([...names].sort());
      await s.deleteFile(index, 'doc', PIPELINE_STATUS_FILE);
      expect(await s.fileExists(index, 'doc', LEGACY_PIPELINE_STATUS_FILE)).toBe(true);
      expect(await s.fileExists(index, 'doc', PIPELINE_STATUS_FILE)).toBe(false);
      expect(await s.listDocuments(index)).toEqual(['doc']);
    });

    conditionalWriteCases(fresh);
    documentPagingCases(fresh);

    const escapes: Array<[string, string, string]> = [
      ['{index}', '..', 'f'],
      ['{index}', 'doc', '../../etc/passwd'],
      ['{index}', 'doc/../x', 'f'],
      ['..', 'doc', 'f'],
      ['{index}', 'doc', 'a/b'],
      ['{index}', 'doc', 'a\\b'],
      ['{index}', 'doc', '..'],
      ['{index}', 'doc', '..km.'],
      ['{index}', 'doc', '..km...'],
      ['{index}', 'doc', '..km.../x'],
      ['UPPER', 'doc', 'f'],
    ];
    for (const [i, d, f] of escapes) {
      it(`refuses names that try to escape their folder: ${i} / ${d} / ${f}`, async () => {
        const { s, index } = await fresh();
        const target = i === '{index}' ? index : i;
        await expect(s.writeFile(target, d, f, 'x')).rejects.toSatisfy((e: unknown) => isKmError(e));
        await expect(s.readFile(target, d, f)).rejects.toSatisfy((e: unknown) => isKmError(e));
        expect(await s.listIndexes()).not.toContain('..');
      });
    }
  });
}
