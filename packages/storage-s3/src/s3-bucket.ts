import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { s3Code, s3Status } from './s3-errors.js';

/**
 * Creates `bucket` unless it exists (HeadBucket, then CreateBucket; a bucket created meanwhile by
 * another worker is fine). Outside us-east-1 the region is sent as LocationConstraint. SDK errors
 * come back untranslated.
 */
export async function ensureBucket(client: S3Client, bucket: string, region: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch (error) {
    if (s3Status(error) !== 404 && s3Code(error) !== 'NotFound' && s3Code(error) !== 'NoSuchBucket') throw error;
  }
  const location =
    region !== 'us-east-1' && region !== 'auto' ? { CreateBucketConfiguration: { LocationConstraint: region as never } } : {};
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket, ...location }));
  } catch (error) {
    if (s3Code(error) !== 'BucketAlreadyOwnedByYou') throw error;
  }
}
