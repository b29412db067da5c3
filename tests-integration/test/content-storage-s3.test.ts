import { createHash, randomUUID } from 'node:crypto';
import { ListMultipartUploadsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describeContentStorage } from '@km/conformance';
import { isKmError } from '@km/core';
import { MIN_PART_SIZE_BYTES, S3ContentStorage, type S3ContentStorageOptions } from '@km/storage-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { containerRuntimeUnavailable } from '../src/container-runtime.js';
import { S3RVER_CREDENTIALS, startS3Server } from '../src/s3-server.js';

// S3ContentStorage on two servers: s3rver from npm (always; it ignores If-Match/If-None-Match, so
// conditional writes stay off), and MinIO, which honours them: KM_TEST_S3_ENDPOINT (with
// KM_TEST_S3_ACCESS_KEY_ID / KM_TEST_S3_SECRET_ACCESS_KEY), else a container when a runtime answers.
const s3rver = await startS3Server();
afterAll(() => s3rver.stop());
const onS3rver = (options: Partial<S3ContentStorageOptions> = {}) =>
  new S3ContentStorage({
    bucket: 'km-conformance',
    endpoint: s3rver.endpoint,
    forcePathStyle: true,
    ...S3RVER_CREDENTIALS,
    createBucket: true,
    partSizeBytes: MIN_PART_SIZE_BYTES,
    ...options,
  });
const close = (s: unknown) => (s as S3ContentStorage).close();

// 12 MiB: three parts of a multipart upload.
describeContentStorage(`S3ContentStorage on ${s3rver.name}`, {
  create: () => onS3rver(),
  dispose: close,
  largeFileBytes: 12 * 1024 * 1024,
});

const rawClient = (endpoint: string, credentials: { accessKeyId: string; secretAccessKey: string }) =>
  new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials, requestChecksumCalculation: 'WHEN_REQUIRED' });

describe(`S3ContentStorage on ${s3rver.name}: what the suite does not see`, () => {
  const index = () => `kmtest-${randomUUID().slice(0, 8)}`;

  it('pages document ids after a given one in S3 key order, ids that share a start included', async () => {
    const storage = onS3rver();
    const i = index();
    // '-', '.', '0', 'B', '_' sort around each other and around the '/' after a folder name.
    const ids = ['a', 'a-b', 'a.x', 'a0', 'a_1', 'ab', 'B', 'b'];
    for (const id of ids) {
      await storage.writeFile(i, id, 'one.txt', 'x');
      await storage.writeFile(i, id, 'two.txt', 'y');
    }
    const seen: string[][] = [];
    let after: string | undefined;
    for (
      let page = await storage.listDocumentsAfter!(i, after, 3);
      page.length > 0;
      page = await storage.listDocumentsAfter!(i, after, 3)
    ) {
      seen.push(page);
      after = page.at(-1);
    }
    expect(seen.flat()).toEqual([...ids].sort());
    expect(seen.map((p) => p.length)).toEqual([3, 3, 2]);
    expect(await storage.listDocumentsAfter!(i, 'a0', 2)).toEqual(['a_1', 'ab']);
    expect(await storage.listDocumentsAfter!(`${i}-missing`, undefined, 5)).toEqual([]);
    await storage.deleteIndexDirectory(i);
    await storage.close();
  });

  it('s3rver ignores If-None-Match, which is why conditional writes are off by default with a custom endpoint', async () => {
    expect(onS3rver().readFileVersion).toBeUndefined();
    const forced = onS3rver({ conditionalWrites: true });
    const i = index();
    await forced.writeFileIfVersion!(i, 'doc', 'state.json', 'one', null);
    // A server honouring the header would refuse this second create (412): s3rver overwrites.
    await forced.writeFileIfVersion!(i, 'doc', 'state.json', 'two', null);
    expect((await forced.readFile(i, 'doc', 'state.json')).toString()).toBe('two');
    await forced.deleteIndexDirectory(i);
    await forced.close();
  });

  it('keys are {prefix}{index}/{documentId}/{file}; objects outside the layout are not listed as indexes', async () => {
    const s = onS3rver({ prefix: 'tenant-a/' });
    const i = index();
    await s.writeFile(i, 'doc-1', 'a.txt', 'x');
    const raw = rawClient(s3rver.endpoint, S3RVER_CREDENTIALS);
    await raw.send(new PutObjectCommand({ Bucket: 'km-conformance', Key: 'tenant-a/Not An Index/x/y', Body: 'z' }));
    const listed = await raw.send(new ListObjectsV2Command({ Bucket: 'km-conformance', Prefix: `tenant-a/${i}/` }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual([`tenant-a/${i}/doc-1/a.txt`]);
    expect(await s.listIndexes()).toEqual([i]);
    expect(await onS3rver({ prefix: 'tenant-b/' }).listIndexes()).not.toContain(i);
    await s.deleteIndexDirectory(i);
    raw.destroy();
    await s.close();
  });

  it('lists and deletes more than 1000 files of a document (continuation tokens, DeleteObjects batches)', async () => {
    const s = onS3rver();
    const i = index();
    const names = Array.from({ length: 1003 }, (_, n) => `f${String(n).padStart(4, '0')}.txt`);
    for (let n = 0; n < names.length; n += 50) await Promise.all(names.slice(n, n + 50).map((f) => s.writeFile(i, 'doc', f, f)));
    expect((await s.listFiles(i, 'doc')).map((f) => f.name)).toEqual(names);
    await s.deleteDocumentDirectory(i, 'doc');
    expect(await s.listFiles(i, 'doc')).toEqual([]);
    expect(await s.listIndexes()).not.toContain(i);
    await s.close();
  }, 120_000);

  it('a 64 MiB stream goes up in parts and reads back unchanged, whole and by range', async () => {
    const s = onS3rver({ queueSize: 2 });
    const i = index();
    const MiB = 1024 * 1024;
    const hash = createHash('sha256');
    async function* sixtyFourMiB() {
      for (let n = 0; n < 64; n++) {
        const chunk = Buffer.alloc(MiB, n);
        hash.update(chunk);
        yield chunk;
      }
    }
    expect(await s.writeFile(i, 'doc', 'big.bin', sixtyFourMiB())).toBe(64 * MiB);
    const back = createHash('sha256');
    for await (const chunk of await s.readFileStream(i, 'doc', 'big.bin')) back.update(chunk as Buffer);
    expect(back.digest('hex')).toBe(hash.digest('hex'));
    const slice: Buffer[] = [];
    for await (const chunk of await s.readFileStream(i, 'doc', 'big.bin', { start: 40 * MiB - 2, end: 40 * MiB + 1 }))
      slice.push(chunk as Buffer);
    expect([...Buffer.concat(slice)]).toEqual([39, 39, 40, 40]);
    await s.deleteIndexDirectory(i);
    await s.close();
  }, 120_000);

  it('a stream failing after two parts leaves no object', async () => {
    const s = onS3rver();
    const i = index();
    async function* failing() {
      yield Buffer.alloc(11 * 1024 * 1024, 1);
      throw new Error('connection reset');
    }
    await expect(s.writeFile(i, 'doc', 'cut.bin', failing())).rejects.toThrow('connection reset');
    expect(await s.fileExists(i, 'doc', 'cut.bin')).toBe(false);
    expect(await s.listFiles(i, 'doc')).toEqual([]);
    await s.close();
  });

  it('an unknown access key is unauthorized; a missing bucket without createBucket is not_configured; no server is transient', async () => {
    const wrongSecret = onS3rver({ accessKeyId: 'NOBODY' });
    await expect(wrongSecret.writeFile(index(), 'doc', 'a.txt', 'x')).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
    const noBucket = onS3rver({ bucket: `kmtest-missing-${randomUUID().slice(0, 8)}`, createBucket: false });
    await expect(noBucket.readFile(index(), 'doc', 'a.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
    await expect(noBucket.listIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
    const nowhere = onS3rver({ endpoint: 'http://127.0.0.1:9', createBucket: false });
    await expect(nowhere.listIndexes()).rejects.toSatisfy((e: unknown) => isKmError(e, 'transient'));
    for (const s of [wrongSecret, noBucket, nowhere]) await s.close();
  });
});

// MinIO: conditional writes on, the whole suite including its conditional-write cases.
type MinIo =
  | { name: string; endpoint: string; accessKeyId: string; secretAccessKey: string; stop: () => Promise<void> }
  | { name: string; skip: string };
const MINIO_IMAGE = 'minio/minio:RELEASE.2025-09-07T16-13-09Z';

async function provisionMinIo(): Promise<MinIo> {
  const endpoint = process.env.KM_TEST_S3_ENDPOINT;
  if (endpoint) {
    return {
      name: `S3ContentStorage on ${endpoint} (KM_TEST_S3_ENDPOINT)`,
      endpoint,
      accessKeyId: process.env.KM_TEST_S3_ACCESS_KEY_ID ?? 'minioadmin',
      secretAccessKey: process.env.KM_TEST_S3_SECRET_ACCESS_KEY ?? 'minioadmin',
      stop: async () => undefined,
    };
  }
  const name = `S3ContentStorage on MinIO (Testcontainers ${MINIO_IMAGE})`;
  const noRuntime = await containerRuntimeUnavailable();
  if (noRuntime)
    return {
      name,
      skip: `set KM_TEST_S3_ENDPOINT to a MinIO (or another S3 with conditional writes), or run with Docker or Podman (${noRuntime})`,
    };
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(MINIO_IMAGE)
    .withEnvironment({ MINIO_ROOT_USER: 'kmtestuser', MINIO_ROOT_PASSWORD: 'kmtestpassword' })
    .withCommand(['server', '/data'])
    .withExposedPorts(9000)
    .withWaitStrategy(Wait.forHttp('/minio/health/ready', 9000).forStatusCode(200).withStartupTimeout(120_000))
    .start();
  return {
    name,
    endpoint: `http://${container.getHost()}:${container.getMappedPort(9000)}`,
    accessKeyId: 'kmtestuser',
    secretAccessKey: 'kmtestpassword',
    stop: async () => {
      await container.stop();
    },
  };
}

const minio = await provisionMinIo();
if ('skip' in minio) {
  console.log(`[km] skipped ${minio.name}: ${minio.skip}`);
  describeContentStorage(minio.name, { create: () => undefined as never, skip: minio.skip });
} else {
  afterAll(() => minio.stop());
  const onMinIo = () =>
    new S3ContentStorage({
      bucket: 'km-conformance',
      endpoint: minio.endpoint,
      forcePathStyle: true,
      accessKeyId: minio.accessKeyId,
      secretAccessKey: minio.secretAccessKey,
      createBucket: true,
      conditionalWrites: true,
      partSizeBytes: MIN_PART_SIZE_BYTES,
    });
  describeContentStorage(minio.name, { create: onMinIo, dispose: close, largeFileBytes: 12 * 1024 * 1024 });

  describe(`${minio.name}: multipart uploads`, () => {
    it('a stream failing after two parts leaves no object and no unfinished multipart upload', async () => {
      const s = onMinIo();
      const i = `kmtest-${randomUUID().slice(0, 8)}`;
      async function* failing() {
        yield Buffer.alloc(11 * 1024 * 1024, 1);
        throw new Error('connection reset');
      }
      await expect(s.writeFile(i, 'doc', 'cut.bin', failing())).rejects.toThrow('connection reset');
      expect(await s.fileExists(i, 'doc', 'cut.bin')).toBe(false);
      const raw = rawClient(minio.endpoint, minio);
      const uploads = await raw.send(new ListMultipartUploadsCommand({ Bucket: 'km-conformance', Prefix: `${i}/` }));
      expect(uploads.Uploads ?? []).toEqual([]);
      raw.destroy();
      await s.close();
    });
  });
}
