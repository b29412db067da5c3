import { PassThrough, Readable } from 'node:stream';
import type { BlobDownloadResponseParsed, BlockBlobClient } from '@azure/storage-blob';
import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { bodyOf, translateBlobError, uploadStreamed } from '../src/index.js';

const translate = (e: unknown) => translateBlobError(e, 'read of "x"');

describe('bodyOf', () => {
  it('passes the bytes through and turns a broken download into a transient km error', async () => {
    const body = new PassThrough();
    const out = bodyOf({ readableStreamBody: body } as unknown as BlobDownloadResponseParsed, translate);
    const read = (async () => {
      const chunks: Buffer[] = [];
      for await (const c of out) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    })();
    body.write('abc');
    setTimeout(() => body.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })), 10);
    await expect(read).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient') && (e as { transient: boolean }).transient);
  });

  it('closing the stream early releases the download', async () => {
    const body = new PassThrough();
    const out = bodyOf({ readableStreamBody: body } as unknown as BlobDownloadResponseParsed, translate);
    out.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.destroyed).toBe(true);
  });
});

describe('uploadStreamed', () => {
  it('returns the bytes the SDK reported staged, with the block size and concurrency asked for', async () => {
    const calls: unknown[] = [];
    const blob = {
      uploadStream: async (
        _s: Readable,
        size: number,
        concurrency: number,
        options: { onProgress: (p: { loadedBytes: number }) => void },
      ) => {
        calls.push([size, concurrency]);
        options.onProgress({ loadedBytes: 5 });
        options.onProgress({ loadedBytes: 9 });
      },
    } as unknown as BlockBlobClient;
    const size = await uploadStreamed(blob, Readable.from([Buffer.from('123456789')]), {
      blockBytes: 1024,
      concurrency: 3,
      blobHTTPHeaders: {},
    });
    expect(size).toBe(9);
    expect(calls).toEqual([[1024, 3]]);
  });

  it('destroys the source stream when the upload fails', async () => {
    const source = new PassThrough();
    const blob = { uploadStream: async () => Promise.reject(new Error('stage failed')) } as unknown as BlockBlobClient;
    await expect(uploadStreamed(blob, source, { blockBytes: 1024, concurrency: 1, blobHTTPHeaders: {} })).rejects.toThrow('stage failed');
    expect(source.destroyed).toBe(true);
  });
});
