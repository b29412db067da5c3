import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ContainerClient } from '@azure/storage-blob';
import { describeContentStorage } from '@km/conformance';
import { isKmError } from '@km/core';
import { AzureBlobsContentStorage } from '@km/storage-azure-blobs';
import { azureBlobsContentStorageFactory } from '@km/storage-azure-blobs/factory';
import { afterAll, describe, expect, it } from 'vitest';
import { startAzureBlobBackend } from '../src/azurite.js';

const azure = await startAzureBlobBackend();
const containers: ContainerClient[] = [];
afterAll(async () => {
  for (const c of containers) await c.deleteIfExists().catch(() => undefined);
  await azure.stop();
});

/** A storage on a container of its own (created by the storage at first use). */
const storage = (options: Partial<ConstructorParameters<typeof AzureBlobsContentStorage>[0]> = {}) => {
  const s = new AzureBlobsContentStorage({
    connectionString: azure.connectionString,
    container: `km-${randomUUID().slice(0, 8)}`,
    ...options,
  });
  containers.push(s.container);
  return s;
};

describeContentStorage(`AzureBlobsContentStorage on ${azure.name}`, { create: () => storage() });
describeContentStorage(`AzureBlobsContentStorage with a prefix and 1 MiB blocks on ${azure.name}`, {
  create: () => storage({ prefix: 'tenant-1/', uploadBlockBytes: 1024 * 1024, uploadConcurrency: 2 }),
  largeFileBytes: 5 * 1024 * 1024 + 17,
});

describe(`AzureBlobsContentStorage on ${azure.name}: blobs as stored`, () => {
  it('stores {prefix}{index}/{documentId}/{file} with a content type, in a container it creates', async () => {
    const s = storage({ prefix: 'p/' });
    await s.writeFile('idx', 'doc-1', 'a.txt', 'hello');
    const names: Array<[string, string | undefined]> = [];
    for await (const b of s.container.listBlobsFlat()) names.push([b.name, b.properties.contentType]);
    expect(names).toEqual([['p/idx/doc-1/a.txt', 'text/plain']]);
    expect(s.location).toBe(`${s.container.url}/p/`);
  });

  it('works with the factory defaults (container km-content, created at first use): the old default `km` was refused by Azure', async () => {
    const s = (await azureBlobsContentStorageFactory.create({ azureBlobsConnectionString: azure.connectionString }, {
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    } as never)) as AzureBlobsContentStorage;
    containers.push(s.container);
    expect(s.container.containerName).toBe('km-content');
    await s.writeFile('idx', 'doc-1', 'a.txt', 'hello');
    expect((await s.readFile('idx', 'doc-1', 'a.txt')).toString()).toBe('hello');
  });

  it('deleting an index deletes every blob under it, past one batch of 256, and nothing of a sibling index', async () => {
    const s = storage();
    const files = Array.from({ length: 300 }, (_, i) => `f${i}.txt`);
    for (let i = 0; i < files.length; i += 50) {
      await Promise.all(files.slice(i, i + 50).map((f, j) => s.writeFile('idx', `doc-${(i + j) % 3}`, f, 'x')));
    }
    await s.writeFile('idx2', 'doc-0', 'keep.txt', 'keep');
    expect(await s.listDocuments('idx')).toEqual(['doc-0', 'doc-1', 'doc-2']);
    await s.deleteIndexDirectory('idx');
    const left: string[] = [];
    for await (const b of s.container.listBlobsFlat()) left.push(b.name);
    expect(left).toEqual(['idx2/doc-0/keep.txt']);
    expect(await s.listIndexes()).toEqual(['idx2']);
  });

  it('lists every file of a document past one page of results', async () => {
    const s = storage();
    const names = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
    await Promise.all(names.map((f) => s.writeFile('idx', 'doc', f, f)));
    expect((await s.listFiles('idx', 'doc')).map((f) => f.name)).toEqual(names);
  });

  it('a failed stream over an existing blob keeps the old content (blocks are committed only at the end)', async () => {
    const s = storage({ uploadBlockBytes: 1024 * 1024 });
    await s.writeFile('idx', 'doc', 'f.bin', 'old');
    async function* failing() {
      yield Buffer.alloc(3 * 1024 * 1024, 1); // three blocks staged before the failure
      throw new Error('connection reset');
    }
    await expect(s.writeFile('idx', 'doc', 'f.bin', failing())).rejects.toThrow('connection reset');
    expect((await s.readFile('idx', 'doc', 'f.bin')).toString()).toBe('old');
  });

  it('returns the size of a streamed upload, a range past the end is empty, an empty blob reads empty', async () => {
    const s = storage();
    expect(await s.writeFile('idx', 'doc', 'e.bin', Readable.from([]))).toBe(0);
    expect((await s.readFile('idx', 'doc', 'e.bin')).length).toBe(0);
    expect(await s.writeFile('idx', 'doc', 's.bin', Readable.from([Buffer.from('abc'), Buffer.from('defg')]))).toBe(7);
    const chunks: Buffer[] = [];
    for await (const c of await s.readFileStream('idx', 'doc', 's.bin', { start: 10, end: 20 })) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).length).toBe(0);
  });

  it('a wrong account key is unauthorized; a storage that may not create its container finds no files', async () => {
    const bad = azure.connectionString.replace(/AccountKey=[^;]+/, `AccountKey=${Buffer.alloc(64, 7).toString('base64')}`);
    const s = storage({ connectionString: bad });
    await expect(s.writeFile('idx', 'doc', 'f.txt', 'x')).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
    const fixed = storage({ createContainer: false });
    await expect(fixed.readFile('idx', 'doc', 'f.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
    expect(await fixed.listIndexes()).toEqual([]);
  });

  it.skipIf(!azure.accountName)('the factory builds a working storage from an account, its key and an endpoint', async () => {
    const container = `km-${randomUUID().slice(0, 8)}`;
    const s = await azureBlobsContentStorageFactory.create(
      {
        azureBlobsAccount: azure.accountName,
        azureBlobsAccountKey: azure.accountKey,
        azureBlobsEndpoint: azure.endpoint,
        azureBlobsContainer: container,
      },
      { logger: console as never },
    );
    containers.push((s as AzureBlobsContentStorage).container);
    await s.writeFile('idx', 'doc', 'f.txt', 'via factory');
    expect((await s.readFile('idx', 'doc', 'f.txt')).toString()).toBe('via factory');
    expect((s as AzureBlobsContentStorage).container.containerName).toBe(container);
  });
});
