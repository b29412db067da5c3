import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/**
 * PutObject only if the object's ETag is still `version` (`If-Match`), or, with `null`, only if it
 * does not exist (`If-None-Match: *`). Returns the new ETag. A lost race comes back as the SDK's
 * 412 PreconditionFailed or 409 ConditionalRequestConflict (and `If-Match` on a deleted object as
 * 404), untranslated.
 */
export async function putIfVersion(
  client: S3Client,
  bucket: string,
  key: string,
  content: Uint8Array | string,
  version: string | null,
): Promise<string> {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const output = await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: body,
      ContentLength: body.byteLength,
      ...(version === null ? { IfNoneMatch: '*' } : { IfMatch: version }),
    }),
  );
  if (!output.ETag) throw Object.assign(new Error('PutObject returned no ETag'), { name: 'MissingETag' });
  return output.ETag;
}
