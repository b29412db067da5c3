import { createHash } from 'node:crypto';
import { DeleteObjectCommand, DeleteObjectsCommand, type S3Client } from '@aws-sdk/client-s3';
import { KmError } from '@km/core';
import { s3Code } from './s3-errors.js';
import { listPages } from './s3-listing.js';

/** Objects one DeleteObjects request may name. */
export const DELETE_BATCH_SIZE = 1000;
/** Single DeleteObject requests in flight when a server refuses DeleteObjects. */
export const SINGLE_DELETE_CONCURRENCY = 16;

/** Codes a server answers DeleteObjects with when it wants Content-MD5 or lacks the operation. */
const BATCH_REFUSED = new Set(['MissingContentMD5', 'InvalidRequest', 'NotImplemented']);

/** How one storage deletes: `contentMd5` on custom endpoints; `singleDeletes` once a server refused DeleteObjects. */
export interface DeleteMode {
  contentMd5: boolean;
  singleDeletes: boolean;
}

/**
 * Deletes every object under `prefix` (which must end with `/`), at any depth: each listed page
 * (at most 1000 keys) becomes one quiet DeleteObjects request. A key the server could not delete
 * fails the call with `upstream_error` naming it. A server that refuses DeleteObjects itself
 * (`MissingContentMD5`, `InvalidRequest`, `NotImplemented`) gets one DeleteObject per key,
 * {@link SINGLE_DELETE_CONCURRENCY} at a time, for this and every later deletion of `mode`.
 */
export async function deleteUnder(client: S3Client, bucket: string, prefix: string, mode: DeleteMode): Promise<void> {
  if (!prefix.endsWith('/')) throw new Error(`deleteUnder: prefix "${prefix}" must end with "/"`);
  for await (const { objects } of listPages(client, bucket, prefix)) {
    const keys = objects.flatMap((o) => (o.Key ? [o.Key] : []));
    for (let i = 0; i < keys.length; i += DELETE_BATCH_SIZE) {
      const batch = keys.slice(i, i + DELETE_BATCH_SIZE);
      if (!mode.singleDeletes) {
        try {
          await deleteBatch(client, bucket, prefix, batch, mode.contentMd5);
          continue;
        } catch (error) {
          if (!BATCH_REFUSED.has(s3Code(error))) throw error;
          mode.singleDeletes = true;
        }
      }
      await deleteOneByOne(client, bucket, batch);
    }
  }
}

async function deleteBatch(client: S3Client, bucket: string, prefix: string, batch: string[], contentMd5: boolean): Promise<void> {
  const command = new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } });
  if (contentMd5) addContentMd5(command);
  const failed = (await client.send(command)).Errors ?? [];
  if (failed.length > 0) {
    const first = failed[0]!;
    throw new KmError(
      'upstream_error',
      `S3 did not delete ${failed.length} of ${batch.length} objects under "${prefix}", e.g. "${first.Key}" (${first.Code}: ${first.Message})`,
      { connector: 's3', transient: /SlowDown|InternalError|ServiceUnavailable/.test(first.Code ?? '') },
    );
  }
}

async function deleteOneByOne(client: S3Client, bucket: string, keys: string[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < keys.length) {
      const Key = keys[next++]!;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
    }
  };
  // allSettled: every worker stops before the call fails, so no request outlives it.
  const results = await Promise.allSettled(Array.from({ length: Math.min(SINGLE_DELETE_CONCURRENCY, keys.length) }, worker));
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * Sends Content-MD5 (base64 MD5 of the XML body) instead of the SDK's CRC32 checksum on one
 * DeleteObjects request: since SDK 3.729 it sends `x-amz-checksum-crc32` and no Content-MD5 even
 * with `requestChecksumCalculation: 'WHEN_REQUIRED'`, and older MinIO and other S3 clones answer
 * `MissingContentMD5` (aws-sdk-js-v3 #6920, supplemental-docs/MD5_FALLBACK.md). A build-step
 * middleware of low priority runs after the SDK's checksum middleware and before signing.
 */
export function addContentMd5(command: DeleteObjectsCommand): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      const body = request.body;
      if (request.headers && (typeof body === 'string' || body instanceof Uint8Array)) {
        for (const header of Object.keys(request.headers)) {
          const lower = header.toLowerCase();
          if (lower.startsWith('x-amz-checksum-') || lower.startsWith('x-amz-sdk-checksum-')) delete request.headers[header];
        }
        request.headers['content-md5'] = createHash('md5').update(body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', priority: 'low', name: 'kmDeleteObjectsContentMd5', override: true },
  );
}
