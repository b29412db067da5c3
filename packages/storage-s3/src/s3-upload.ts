import { Readable } from 'node:stream';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { StorageContent } from '@km/core';

/** Where and how {@link uploadContent} writes. */
export interface UploadTarget {
  client: S3Client;
  bucket: string;
  key: string;
  partSizeBytes: number;
  queueSize: number;
}

/** The error a caller's stream failed with, so it reaches the caller unchanged instead of as an S3 error. */
export class SourceStreamError extends Error {
  constructor(readonly original: unknown) {
    super('the content stream failed', { cause: original });
  }
}

/**
 * Writes one object and returns its size. Bytes and text up to `partSizeBytes` go in one PutObject;
 * streams (and larger buffers) through lib-storage's `Upload`: one PutObject when the stream ends
 * within the first part, else a multipart upload holding at most about `partSizeBytes * (queueSize + 1)`
 * in memory. The object appears only when the upload completes (S3 makes it visible atomically);
 * a stream that fails midway aborts the multipart upload, so no object appears, and the stream's
 * own error comes back wrapped in {@link SourceStreamError}.
 */
export async function uploadContent(target: UploadTarget, content: StorageContent): Promise<number> {
  const { client, bucket, key } = target;
  if (typeof content === 'string' || content instanceof Uint8Array) {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    if (body.byteLength <= target.partSizeBytes) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.byteLength }));
      return body.byteLength;
    }
  }
  let size = 0;
  let sourceError: SourceStreamError | undefined;
  async function* counted(source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of source) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        size += bytes.byteLength;
        yield bytes;
      }
    } catch (error) {
      sourceError = new SourceStreamError(error);
      throw error;
    }
  }
  const source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string> =
    typeof content === 'string' ? [content] : content instanceof Uint8Array ? [content] : content;
  const body = Readable.from(counted(source), { objectMode: false });
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: body },
    partSize: target.partSizeBytes,
    queueSize: target.queueSize,
    leavePartsOnError: false,
  });
  try {
    await upload.done();
  } catch (error) {
    throw sourceError ?? error;
  } finally {
    body.destroy();
  }
  return size;
}
