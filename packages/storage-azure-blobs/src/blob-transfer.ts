import { PassThrough, Readable } from 'node:stream';
import type { BlobDownloadResponseParsed, BlobHTTPHeaders, BlockBlobClient } from '@azure/storage-blob';
import type { StorageContent } from '@km/core';
import { contentToReadable } from '@km/core/connector';

/** How a stream is cut into staged blocks. */
export interface BlockUpload {
  /** Bytes per staged block: one buffer of this size per block in flight. */
  blockBytes: number;
  /** Block buffers; ¾ of them (rounded up) are staged at once. */
  concurrency: number;
  blobHTTPHeaders: BlobHTTPHeaders;
}

/**
 * Uploads a stream as staged blocks committed once it ended, and returns its size. The SDK
 * holds at most `concurrency` block buffers (stages up to ¾ of them at once) and pauses the
 * stream while they are full; each block in flight is copied once more on its way out, and up to
 * one more block waits to be cut: at most `blockBytes × (concurrency + ⌈¾·concurrency⌉ + 1)`
 * (measured on Azurite: 8 × 2 MiB = 16 MiB live for a 100 MiB stream with the defaults). A stream that fails before its end commits nothing: the blob
 * keeps its old content (or stays missing), and the staged blocks expire on Azure's side.
 * On failure the source stream is destroyed.
 */
export async function uploadStreamed(blob: BlockBlobClient, content: StorageContent, upload: BlockUpload): Promise<number> {
  const stream = contentToReadable(content);
  let size = 0;
  try {
    await blob.uploadStream(stream, upload.blockBytes, upload.concurrency, {
      blobHTTPHeaders: upload.blobHTTPHeaders,
      onProgress: ({ loadedBytes }) => {
        size = loadedBytes; // reported after each staged block: the last report is the blob's size
      },
    });
  } catch (error) {
    stream.destroy();
    throw error;
  }
  return size;
}

/**
 * The body of a download as a Node stream whose failures are km errors (the SDK first resumes a
 * broken download at its offset, pinned to the same ETag). Closing it early releases the connection.
 */
export function bodyOf(answer: BlobDownloadResponseParsed, translate: (error: unknown) => Error): Readable {
  const body = answer.readableStreamBody as Readable | undefined;
  if (!body) return Readable.from([]);
  const out = new PassThrough();
  body.once('error', (error) => out.destroy(translate(error)));
  out.once('close', () => {
    if (!body.readableEnded) body.destroy();
  });
  return body.pipe(out);
}

/** An error of the Azure SDK (a `RestError`), not of the caller's stream. */
export function isRestError(error: unknown): boolean {
  return typeof (error as { statusCode?: unknown } | undefined)?.statusCode === 'number' || (error as Error)?.name === 'RestError';
}
