import type { ContainerClient } from '@azure/storage-blob';
import { isKmError, PIPELINE_STATUS_FILE } from '@km/core';
import { describe, expect, it } from 'vitest';
import { AzureBlobsContentStorage } from '../src/index.js';

/** A container whose blob uploads fail with `error` (the shapes of the SDK's RestError). */
function containerFailingWith(error: Record<string, unknown>): ContainerClient {
  const blob = { upload: async () => Promise.reject(Object.assign(new Error(String(error.code)), error)) };
  return {
    containerName: 'km',
    url: 'https://account.blob.core.windows.net/km',
    getBlockBlobClient: () => blob,
    createIfNotExists: async () => ({ succeeded: false }),
  } as unknown as ContainerClient;
}

const write = (storage: AzureBlobsContentStorage, version: string | null) =>
  storage.writeFileIfVersion('docs', 'doc-1', PIPELINE_STATUS_FILE, '{}', version);

describe('AzureBlobsContentStorage conditional writes, as the service answers them', () => {
  it('a blob deleted since it was read (404 BlobNotFound on If-Match) is a write_conflict, as Azure answers and Azurite does not', async () => {
    const storage = new AzureBlobsContentStorage({ containerClient: containerFailingWith({ statusCode: 404, code: 'BlobNotFound' }) });
    await expect(write(storage, '"0x8DC"')).rejects.toSatisfy((e: unknown) => isKmError(e, 'write_conflict'));
  });

  it.each([
    [{ statusCode: 412, code: 'ConditionNotMet' }, '"0x8DC"'],
    [{ statusCode: 409, code: 'BlobAlreadyExists' }, null],
  ])('%j is a write_conflict', async (error, version) => {
    const storage = new AzureBlobsContentStorage({ containerClient: containerFailingWith(error) });
    await expect(write(storage, version)).rejects.toSatisfy((e: unknown) => isKmError(e, 'write_conflict'));
  });

  it('another 412 (a lease held by someone) is not a lost race', async () => {
    const storage = new AzureBlobsContentStorage({ containerClient: containerFailingWith({ statusCode: 412, code: 'LeaseIdMissing' }) });
    await expect(write(storage, '"0x8DC"')).rejects.toSatisfy((e: unknown) => !isKmError(e, 'write_conflict'));
  });
});
