import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { InvalidInputError } from '@km/core';

/** Options of {@link S3ContentStorage}. */
export interface S3ContentStorageOptions {
  /** The bucket holding every file. Required. */
  bucket: string;
  /** Prepended to every key, e.g. `km/` (keys are `{prefix}{index}/{documentId}/{file}`). @default '' */
  prefix?: string;
  /** An S3-compatible server (MinIO, Cloudflare R2, …), e.g. `http://127.0.0.1:9000`. @default AWS S3 */
  endpoint?: string;
  /** @default 'us-east-1' (R2 takes `auto`) */
  region?: string;
  /** Address buckets as `{endpoint}/{bucket}` instead of `{bucket}.{endpoint}` (MinIO needs it). @default false */
  forcePathStyle?: boolean;
  /** Access key id; with `secretAccessKey`. @default the SDK's default credential chain (env, profile, SSO, instance role) */
  accessKeyId?: string;
  /** Secret access key; with `accessKeyId`. */
  secretAccessKey?: string;
  /** Session token of temporary credentials. */
  sessionToken?: string;
  /** Your own client; then `endpoint`, `region`, `forcePathStyle` and the credentials are not used, and `close()` leaves it open. */
  client?: S3Client;
  /** Create the bucket at first use when it is missing. @default false */
  createBucket?: boolean;
  /**
   * Offer `readFileVersion`/`writeFileIfVersion` (PutObject with `If-None-Match: *` / `If-Match: <etag>`).
   * Only for servers that honour those headers (AWS S3, MinIO): a server that ignores them would make
   * conditional writes unconditional. @default true on AWS S3, false with a custom `endpoint`
   */
  conditionalWrites?: boolean;
  /** Part size of multipart uploads, in bytes (at least 5 MiB); content up to this size is sent with one PutObject. @default 8 MiB */
  partSizeBytes?: number;
  /** Parts of one upload sent at once (memory use is about `partSizeBytes * (queueSize + 1)`). @default 4 */
  queueSize?: number;
}

/** Smallest part size S3 accepts for all parts but the last. */
export const MIN_PART_SIZE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_PART_SIZE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_QUEUE_SIZE = 4;

/** The checked options, with defaults applied. */
export interface S3Settings {
  bucket: string;
  prefix: string;
  client: S3Client;
  ownsClient: boolean;
  createBucket: boolean;
  conditionalWrites: boolean;
  /** An S3-compatible server rather than AWS S3 (the `endpoint` option, or a given client's). */
  customEndpoint: boolean;
  region: string;
  partSizeBytes: number;
  queueSize: number;
}

/**
 * Checks the options and builds the client (unless one is given). Throws `invalid_argument`,
 * its message starting with `owner` (what was configured).
 */
export function resolveS3Settings(options: S3ContentStorageOptions, owner = 'S3ContentStorage'): S3Settings {
  const fail = (message: string): never => {
    throw new InvalidInputError('invalid_argument', `${owner}: ${message}`);
  };
  if (typeof options.bucket !== 'string' || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(options.bucket)) {
    fail(`bucket ${JSON.stringify(options.bucket)} is not a valid S3 bucket name (3-63 of a-z, 0-9, '.', '-')`);
  }
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string' || prefix.startsWith('/') || prefix.includes('//')) {
    fail(`prefix ${JSON.stringify(prefix)} must not start with '/' nor hold '//'`);
  }
  if ((options.accessKeyId === undefined) !== (options.secretAccessKey === undefined)) {
    fail('accessKeyId and secretAccessKey go together');
  }
  const partSizeBytes = options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES;
  if (!Number.isInteger(partSizeBytes) || partSizeBytes < MIN_PART_SIZE_BYTES)
    fail(`partSizeBytes must be an integer >= ${MIN_PART_SIZE_BYTES}`);
  const queueSize = options.queueSize ?? DEFAULT_QUEUE_SIZE;
  if (!Number.isInteger(queueSize) || queueSize < 1) fail('queueSize must be an integer >= 1');
  const region = options.region ?? 'us-east-1';
  const client = options.client ?? new S3Client(clientConfig(options, region));
  const customEndpoint = options.client ? Boolean(options.client.config.isCustomEndpoint) : options.endpoint !== undefined;
  return {
    bucket: options.bucket,
    prefix,
    client,
    ownsClient: !options.client,
    createBucket: options.createBucket ?? false,
    conditionalWrites: options.conditionalWrites ?? !customEndpoint,
    customEndpoint,
    region,
    partSizeBytes,
    queueSize,
  };
}

function clientConfig(options: S3ContentStorageOptions, region: string): S3ClientConfig {
  const config: S3ClientConfig = { region };
  if (options.endpoint !== undefined) {
    config.endpoint = options.endpoint;
    // S3-compatible servers often reject or store the SDK's default CRC32 checksums (aws-chunked
    // bodies, x-amz-checksum-* headers): send and check them only where an operation requires one.
    config.requestChecksumCalculation = 'WHEN_REQUIRED';
    config.responseChecksumValidation = 'WHEN_REQUIRED';
  }
  if (options.forcePathStyle !== undefined) config.forcePathStyle = options.forcePathStyle;
  if (options.accessKeyId !== undefined && options.secretAccessKey !== undefined) {
    config.credentials = {
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      ...(options.sessionToken !== undefined ? { sessionToken: options.sessionToken } : {}),
    };
  }
  return config;
}
