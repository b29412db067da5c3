import { InvalidInputError } from '@km/core';
import { type ContentStorageFactory, settingsAsOptions } from '@km/core/connector';

/** `true`/`false` (also `1`/`0`, `yes`/`no`) of a boolean setting; undefined when unset. */
export function booleanSetting(value: string | number | undefined, what: string): boolean | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim().toLowerCase();
  if (['true', '1', 'yes'].includes(text)) return true;
  if (['false', '0', 'no'].includes(text)) return false;
  throw new InvalidInputError('invalid_argument', `configuration: ${what} must be true or false, got ${JSON.stringify(value)}`);
}

/**
 * How the service and `km worker` build an {@link S3ContentStorage} from configuration
 * (`KM_CONTENT_STORAGE=s3`). The connector and the AWS SDK load only when it is chosen.
 */
export const s3ContentStorageFactory: ContentStorageFactory = {
  type: 's3',
  description: 'AWS S3 or an S3-compatible server (MinIO, Cloudflare R2), shared by every worker (@aws-sdk/client-s3)',
  settings: [
    { key: 's3Bucket', env: ['KM_S3_BUCKET'], required: true, flag: '--s3-bucket', description: 'the bucket holding every file' },
    {
      key: 's3Endpoint',
      env: ['KM_S3_ENDPOINT'],
      type: 'url',
      flag: '--s3-endpoint',
      description: 'an S3-compatible server, e.g. http://127.0.0.1:9000 (default: AWS S3)',
    },
    { key: 's3Region', env: ['KM_S3_REGION', 'AWS_REGION'], default: 'us-east-1', description: 'the region (R2: auto)' },
    {
      key: 's3AccessKeyId',
      env: ['KM_S3_ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID'],
      with: ['s3SecretAccessKey'],
      description: "access key id (default: the AWS SDK's credential chain)",
    },
    { key: 's3SecretAccessKey', env: ['KM_S3_SECRET_ACCESS_KEY', 'AWS_SECRET_ACCESS_KEY'], description: 'secret access key' },
    { key: 's3SessionToken', env: ['KM_S3_SESSION_TOKEN', 'AWS_SESSION_TOKEN'], description: 'session token of temporary credentials' },
    { key: 's3ForcePathStyle', env: ['KM_S3_FORCE_PATH_STYLE'], description: 'true: {endpoint}/{bucket} URLs (MinIO)' },
    {
      key: 's3ConditionalWrites',
      env: ['KM_S3_CONDITIONAL_WRITES'],
      description: 'true: the server honours If-Match/If-None-Match on PutObject (default: true on AWS S3, false with an endpoint)',
    },
    { key: 's3Prefix', env: ['KM_S3_PREFIX'], description: 'prepended to every object key, e.g. km/' },
    { key: 's3CreateBucket', env: ['KM_S3_CREATE_BUCKET'], description: 'true: create the bucket when it is missing' },
  ],
  async create(settings) {
    const forcePathStyle = booleanSetting(settings.s3ForcePathStyle, 's3ForcePathStyle (KM_S3_FORCE_PATH_STYLE)');
    const conditionalWrites = booleanSetting(settings.s3ConditionalWrites, 's3ConditionalWrites (KM_S3_CONDITIONAL_WRITES)');
    const createBucket = booleanSetting(settings.s3CreateBucket, 's3CreateBucket (KM_S3_CREATE_BUCKET)');
    const { S3ContentStorage } = await import('./s3-content-storage.js');
    return new S3ContentStorage({
      bucket: String(settings.s3Bucket),
      ...settingsAsOptions(settings, {
        endpoint: 's3Endpoint',
        region: 's3Region',
        accessKeyId: 's3AccessKeyId',
        secretAccessKey: 's3SecretAccessKey',
        sessionToken: 's3SessionToken',
        prefix: 's3Prefix',
      }),
      ...(forcePathStyle !== undefined ? { forcePathStyle } : {}),
      ...(conditionalWrites !== undefined ? { conditionalWrites } : {}),
      ...(createBucket !== undefined ? { createBucket } : {}),
    });
  },
};
