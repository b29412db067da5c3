import type { ContainerClient } from '@azure/storage-blob';
import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { BlobDeletion } from '../src/index.js';

/** A container stand-in that records requests: checks the shape of the deletes, not Azure (the conformance suite does that). */
function recorder(blobNames: string[], batch: (names: string[]) => Promise<{ subResponses: unknown[] }>) {
  const singles: string[] = [];
  const batches: string[][] = [];
  const container = {
    listBlobsFlat: ({ prefix }: { prefix: string }) => ({
      byPage: ({ maxPageSize }: { maxPageSize: number }) =>
        (async function* () {
          const matching = blobNames.filter((n) => n.startsWith(prefix));
          for (let i = 0; i < matching.length; i += maxPageSize) {
            yield { segment: { blobItems: matching.slice(i, i + maxPageSize).map((name) => ({ name })) } };
          }
        })(),
    }),
    getBlobClient: (name: string) => ({ name, deleteIfExists: async () => void singles.push(name) }),
    getBlobBatchClient: () => ({
      deleteBlobs: async (clients: Array<{ name: string }>) => {
        batches.push(clients.map((c) => c.name));
        return batch(clients.map((c) => c.name));
      },
    }),
  } as unknown as ContainerClient;
  return { container, singles, batches };
}

const names = (n: number, folder: string) => Array.from({ length: n }, (_, i) => `${folder}f${i}`);

describe('BlobDeletion', () => {
  it('deletes in batches of at most 256, only under the folder, and ignores blobs already gone', async () => {
    const r = recorder([...names(600, 'idx/doc/'), 'idx2/doc/keep'], async (n) => ({
      subResponses: n.map((_, i) => ({ status: i === 0 ? 404 : 202 })),
    }));
    await new BlobDeletion(r.container).deleteUnder('idx/');
    expect(r.batches.map((b) => b.length)).toEqual([256, 256, 88]);
    expect(r.batches.flat()).not.toContain('idx2/doc/keep');
    expect(r.singles).toEqual([]);
  });

  it('falls back to single deletes when the account refuses batches, and keeps doing so', async () => {
    const r = recorder(names(300, 'idx/'), async () =>
      Promise.reject({ statusCode: 400, code: 'InvalidInput', message: 'batch not supported' }),
    );
    await new BlobDeletion(r.container).deleteUnder('idx/');
    expect(r.batches).toHaveLength(1);
    expect(r.singles).toHaveLength(300);
  });

  it('a sub-request refused for another reason fails the deletion with a km error', async () => {
    const r = recorder(names(2, 'idx/'), async () => ({
      subResponses: [
        { status: 202 },
        { status: 403, errorCode: 'AuthorizationPermissionMismatch', statusMessage: 'no', _request: { url: 'u' } },
      ],
    }));
    await expect(new BlobDeletion(r.container).deleteUnder('idx/')).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
  });

  it('refuses a prefix that is not a folder', async () => {
    const r = recorder([], async () => ({ subResponses: [] }));
    await expect(new BlobDeletion(r.container).deleteUnder('idx')).rejects.toThrow(/not a folder/);
  });
});
