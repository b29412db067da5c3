import { DeleteObjectsCommand, ListObjectsV2Command, type _Object, type S3Client } from '@aws-sdk/client-s3';
import { KmError } from '@km/core';

/** One page of a listing: the objects and the "folders" (common prefixes) directly under a prefix. */
export interface ListingPage {
  objects: _Object[];
  folders: string[];
}

/**
 * Every page of `ListObjectsV2` under `prefix`, following continuation tokens. With `delimiter`
 * `/` the objects are those directly under it and `folders` the next level; without, every
 * object under it at any depth.
 */
export async function* listPages(client: S3Client, bucket: string, prefix: string, delimiter?: '/'): AsyncGenerator<ListingPage> {
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        ...(prefix !== '' ? { Prefix: prefix } : {}),
        ...(delimiter ? { Delimiter: delimiter } : {}),
        ...(token ? { ContinuationToken: token } : {}),
      }),
    );
    yield {
      objects: page.Contents ?? [],
      folders: (page.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix] : [])),
    };
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** Objects one DeleteObjects request may name. */
export const DELETE_BATCH_SIZE = 1000;

/**
 * Deletes every object under `prefix` (which must end with `/`), at any depth: each listed page
 * (at most 1000 keys) becomes one DeleteObjects request. A key the server could not delete fails
 * the call with `upstream_error` naming it.
 */
export async function deleteUnder(client: S3Client, bucket: string, prefix: string): Promise<void> {
  if (!prefix.endsWith('/')) throw new Error(`deleteUnder: prefix "${prefix}" must end with "/"`);
  for await (const { objects } of listPages(client, bucket, prefix)) {
    const keys = objects.flatMap((o) => (o.Key ? [o.Key] : []));
    for (let i = 0; i < keys.length; i += DELETE_BATCH_SIZE) {
      const batch = keys.slice(i, i + DELETE_BATCH_SIZE);
      const result = await client.send(
        new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = result.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0]!;
        throw new KmError(
          'upstream_error',
          `S3 did not delete ${failed.length} of ${batch.length} objects under "${prefix}", e.g. "${first.Key}" (${first.Code}: ${first.Message})`,
          { connector: 's3', transient: /SlowDown|InternalError|ServiceUnavailable/.test(first.Code ?? '') },
        );
      }
    }
  }
}
