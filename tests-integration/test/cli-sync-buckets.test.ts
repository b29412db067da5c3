import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient } from '@azure/storage-blob';
import { afterAll, describe, expect, it } from 'vitest';
import { startAzureBlobBackend } from '../src/azurite.js';
import { S3RVER_CREDENTIALS, startS3Server } from '../src/s3-server.js';

// `km sync s3://bucket/prefix` and `km sync azure://container/prefix` in local mode, with the
// storage settings of the service's environment variables, on s3rver and Azurite.
const run = promisify(execFile);
const BIN = join(dirname(createRequire(import.meta.url).resolve('@km/cli/package.json')), 'dist/bin.js');
const SUMMARY = /^added (\d+), updated (\d+), unchanged (\d+), deleted (\d+), failed (\d+) in/m;

async function km(args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '', ...env },
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
const counts = (stdout: string) => SUMMARY.exec(stdout)?.slice(1).map(Number);

const s3rver = await startS3Server();
const azure = await startAzureBlobBackend();
const data = await mkdtemp(join(tmpdir(), 'km-cli-buckets-'));
afterAll(async () => {
  await s3rver.stop();
  await azure.stop();
  await rm(data, { recursive: true, force: true });
});

describe(`km sync of buckets (${s3rver.name}, ${azure.name})`, () => {
  it('syncs an S3 prefix, then only what changed', async () => {
    const s3 = new S3Client({ endpoint: s3rver.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: S3RVER_CREDENTIALS });
    const bucket = `kmcli-${randomUUID().slice(0, 8)}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const put = (key: string, body: string) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: Buffer.byteLength(body) }));
    await put('kb/mars.md', '# Mars\n\nMars has the tallest volcano.');
    await put('kb/venus.txt', 'Venus is the hottest planet.');
    await put('other/x.txt', 'outside the prefix');
    const env = {
      KM_S3_ENDPOINT: s3rver.endpoint,
      KM_S3_FORCE_PATH_STYLE: 'true',
      KM_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      KM_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    };
    const args = ['sync', `s3://${bucket}/kb`, '--data-dir', join(data, 's3'), '--index', 'bucket'];
    const first = await km(args, env);
    expect(first.code).toBe(0);
    expect(counts(first.stdout)).toEqual([2, 0, 0, 0, 0]);
    await put('kb/venus.txt', 'Venus is the hottest planet, under clouds of acid.');
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'kb/mars.md' }));
    expect(counts((await km(args, env)).stdout)).toEqual([0, 1, 0, 1, 0]);
    s3.destroy();
  });

  it('syncs an Azure Blob container prefix', async () => {
    const container = BlobServiceClient.fromConnectionString(azure.connectionString).getContainerClient(
      `kmcli-${randomUUID().slice(0, 8)}`,
    );
    await container.create();
    for (const [name, body] of [
      ['kb/comets.txt', 'Comets have tails of gas and dust.'],
      ['kb/tides.md', '# Tides\n\nTides follow the Moon.'],
    ] as const)
      await container.getBlockBlobClient(name).upload(body, Buffer.byteLength(body));
    const run = await km(['sync', `azure://${container.containerName}/kb`, '--data-dir', join(data, 'azure'), '--json'], {
      KM_AZURE_BLOBS_CONNECTION_STRING: azure.connectionString,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'azure-blob', listed: 2, added: 2, failed: 0, complete: true });
    await container.deleteIfExists();
  });
});
