import { S3Client } from '@aws-sdk/client-s3';
import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { resolveS3Settings } from '../src/s3-config.js';

const invalid = (e: unknown) => isKmError(e, 'invalid_argument');

describe('S3 options', () => {
  it('defaults: region us-east-1, no prefix, 8 MiB parts × 4, no bucket creation, conditional writes on AWS only', async () => {
    const aws = resolveS3Settings({ bucket: 'km-files' });
    expect([aws.region, aws.prefix, aws.partSizeBytes, aws.queueSize, aws.createBucket, aws.conditionalWrites, aws.ownsClient]).toEqual([
      'us-east-1',
      '',
      8 * 1024 * 1024,
      4,
      false,
      true,
      true,
    ]);
    expect(await aws.client.config.region()).toBe('us-east-1');
    const minio = resolveS3Settings({ bucket: 'km-files', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true });
    expect([minio.conditionalWrites, minio.customEndpoint, aws.customEndpoint]).toEqual([false, true, false]);
    expect(minio.client.config.forcePathStyle).toBe(true);
    expect(await minio.client.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    expect(resolveS3Settings({ bucket: 'km-files', endpoint: 'http://x:9000', conditionalWrites: true }).conditionalWrites).toBe(true);
  });

  it('your own client is used as it is and left open; its endpoint decides the conditional-writes default (and Content-MD5 on DeleteObjects)', () => {
    const client = new S3Client({ region: 'eu-west-1', endpoint: 'http://127.0.0.1:9000' });
    const s = resolveS3Settings({ bucket: 'km-files', client });
    expect([s.client, s.ownsClient, s.conditionalWrites, s.customEndpoint]).toEqual([client, false, false, true]);
    const aws = resolveS3Settings({ bucket: 'km-files', client: new S3Client({ region: 'eu-west-1' }) });
    expect([aws.conditionalWrites, aws.customEndpoint]).toEqual([true, false]);
  });

  it('explicit credentials, with a session token', async () => {
    const s = resolveS3Settings({ bucket: 'km-files', accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: 'T' });
    const credentials = await s.client.config.credentials();
    expect([credentials.accessKeyId, credentials.secretAccessKey, credentials.sessionToken]).toEqual(['AK', 'SK', 'T']);
  });

  it('refuses bad bucket names, part sizes, queue sizes, prefixes and a key without its secret', () => {
    expect(() => resolveS3Settings({ bucket: 'Km_Files' })).toThrow();
    for (const options of [
      { bucket: 'Km_Files' },
      { bucket: 'ab' },
      { bucket: 'km-files', partSizeBytes: 1024 },
      { bucket: 'km-files', queueSize: 0 },
      { bucket: 'km-files', prefix: '/abs/' },
      { bucket: 'km-files', prefix: 'a//b/' },
      { bucket: 'km-files', accessKeyId: 'AK' },
    ]) {
      let error: unknown;
      try {
        resolveS3Settings(options);
      } catch (e) {
        error = e;
      }
      expect([JSON.stringify(options), invalid(error)]).toEqual([JSON.stringify(options), true]);
    }
  });
});
