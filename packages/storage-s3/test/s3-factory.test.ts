import { isKmError } from '@km/core';
import { readSettings, settingsFromEnv } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { s3ContentStorageFactory } from '../src/factory.js';
import type { S3ContentStorage } from '../src/index.js';

const fromEnv = (env: Record<string, string>) =>
  readSettings(s3ContentStorageFactory, { env, section: settingsFromEnv([s3ContentStorageFactory], env), sectionName: 'contentStorage' });
const build = async (env: Record<string, string>) =>
  (await s3ContentStorageFactory.create(fromEnv(env), { logger: console as never })) as S3ContentStorage;

describe('s3ContentStorageFactory', () => {
  it('type s3; KM_S3_BUCKET is required', () => {
    expect(s3ContentStorageFactory.type).toBe('s3');
    expect(() => fromEnv({})).toThrow(/KM_S3_BUCKET/);
  });

  it('reads KM_S3_* and falls back to AWS_REGION / AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY', () => {
    expect(
      fromEnv({ KM_S3_BUCKET: 'km-files', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' }),
    ).toMatchObject({
      s3Bucket: 'km-files',
      s3Region: 'eu-west-1',
      s3AccessKeyId: 'AK',
      s3SecretAccessKey: 'SK',
    });
    expect(fromEnv({ KM_S3_BUCKET: 'km-files', KM_S3_REGION: 'auto', AWS_REGION: 'eu-west-1' }).s3Region).toBe('auto');
    expect(fromEnv({ KM_S3_BUCKET: 'km-files' }).s3Region).toBe('us-east-1');
    expect(() => fromEnv({ KM_S3_BUCKET: 'km-files', KM_S3_ACCESS_KEY_ID: 'AK' })).toThrow(/go together/);
    expect(() => fromEnv({ KM_S3_BUCKET: 'km-files', KM_S3_ENDPOINT: 'ftp://x' })).toThrow(/KM_S3_ENDPOINT/);
  });

  it('conditional writes: on for AWS, off with an endpoint, KM_S3_CONDITIONAL_WRITES decides when set', async () => {
    expect((await build({ KM_S3_BUCKET: 'km-files' })).conditionalWrites).toBe(true);
    const minio = await build({ KM_S3_BUCKET: 'km-files', KM_S3_ENDPOINT: 'http://127.0.0.1:9000', KM_S3_FORCE_PATH_STYLE: 'true' });
    expect([minio.conditionalWrites, minio.writeFileIfVersion]).toEqual([false, undefined]);
    const on = await build({ KM_S3_BUCKET: 'km-files', KM_S3_ENDPOINT: 'http://127.0.0.1:9000', KM_S3_CONDITIONAL_WRITES: 'true' });
    expect(typeof on.writeFileIfVersion).toBe('function');
    expect((await build({ KM_S3_BUCKET: 'km-files', KM_S3_CONDITIONAL_WRITES: 'false' })).readFileVersion).toBeUndefined();
  });

  it('a boolean setting that is neither true nor false is invalid_argument naming its variable', async () => {
    await expect(build({ KM_S3_BUCKET: 'km-files', KM_S3_FORCE_PATH_STYLE: 'maybe' })).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'invalid_argument') && /KM_S3_FORCE_PATH_STYLE/.test((e as Error).message),
    );
  });
});
