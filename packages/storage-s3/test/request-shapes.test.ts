import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MIN_PART_SIZE_BYTES, S3ContentStorage, type S3ContentStorageOptions } from '../src/index.js';
import { type S3Answer, type S3Recorder, type S3Request, s3ErrorXml, startS3Recorder } from './s3-recorder.js';

// A recorder that answers like S3's REST API, to check the requests the connector sends against the
// API reference. It checks shapes only: whether the connector works is proven by the conformance
// suite against s3rver and MinIO (tests-integration/test/content-storage-s3.test.ts).
let recorder: S3Recorder;
let seen: S3Request[];
let override: ((r: S3Request) => S3Answer | Promise<S3Answer> | undefined) | undefined;

const listXml = (keys: string[], folders: string[], next?: string) =>
  `<ListBucketResult><Name>b</Name><KeyCount>${keys.length}</KeyCount><IsTruncated>${next ? 'true' : 'false'}</IsTruncated>${
    next ? `<NextContinuationToken>${next}</NextContinuationToken>` : ''
  }${keys.map((k) => `<Contents><Key>${k}</Key><Size>3</Size><LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents>`).join('')}${folders
    .map((f) => `<CommonPrefixes><Prefix>${f}</Prefix></CommonPrefixes>`)
    .join('')}</ListBucketResult>`;

function defaultAnswer(r: S3Request): S3Answer {
  if (r.method === 'POST' && r.query.has('uploads'))
    return {
      xml: '<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>up-1</UploadId></InitiateMultipartUploadResult>',
    };
  if (r.method === 'PUT') return { headers: { etag: `"etag-${r.query.get('partNumber') ?? 'put'}"` } };
  if (r.method === 'POST' && r.query.has('uploadId'))
    return { xml: '<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><ETag>"x-2"</ETag></CompleteMultipartUploadResult>' };
  if (r.method === 'POST' && r.query.has('delete')) return { xml: '<DeleteResult></DeleteResult>' };
  if (r.method === 'DELETE') return { status: 204 };
  if (r.method === 'GET' && r.query.get('list-type') === '2') return { xml: listXml([], []) };
  if (r.method === 'GET') return { headers: { etag: '"e1"', 'content-length': '5' }, xml: 'hello' };
  return {};
}

beforeAll(async () => {
  recorder = await startS3Recorder((r) => override?.(r) ?? defaultAnswer(r));
  seen = recorder.requests;
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  override = undefined;
});

const storage = (options: Partial<S3ContentStorageOptions> = {}) =>
  new S3ContentStorage({
    bucket: 'bkt',
    client: new S3Client({
      endpoint: recorder.url,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
    partSizeBytes: MIN_PART_SIZE_BYTES,
    ...options,
  });
const part = (n: number) => Buffer.alloc(n, 7);

describe('S3 requests: writes', () => {
  it('text goes in one PutObject at {prefix}{index}/{documentId}/{file}, unconditionally', async () => {
    expect(await storage({ prefix: 'km/' }).writeFile('notes', 'doc-1', 'a.txt', 'héllo')).toBe(6);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'PUT', path: '/bkt/km/notes/doc-1/a.txt' });
    expect(seen[0]!.body.toString()).toBe('héllo');
    expect(seen[0]!.headers['if-match']).toBeUndefined();
    expect(seen[0]!.headers['if-none-match']).toBeUndefined();
  });

  it('a stream longer than a part goes up as a multipart upload with parts of partSizeBytes', async () => {
    const chunks = [part(3 * 1024 * 1024), part(3 * 1024 * 1024), part(1000)];
    expect(await storage().writeFile('notes', 'doc', 'big.bin', Readable.from(chunks))).toBe(6 * 1024 * 1024 + 1000);
    const shapes = seen.map(
      (r) =>
        `${r.method} ${[...r.query.keys()]
          .filter((k) => k !== 'x-id')
          .sort()
          .join(',')}`,
    );
    expect(shapes).toEqual(['POST uploads', 'PUT partNumber,uploadId', 'PUT partNumber,uploadId', 'POST uploadId']);
    const sizes = seen.filter((r) => r.query.has('partNumber')).map((r) => [r.query.get('partNumber'), r.body.length]);
    expect(sizes.sort()).toEqual([
      ['1', MIN_PART_SIZE_BYTES],
      ['2', 6 * 1024 * 1024 + 1000 - MIN_PART_SIZE_BYTES],
    ]);
    expect(seen.at(-1)!.body.toString()).toMatch(/<PartNumber>1<\/PartNumber>.*<PartNumber>2<\/PartNumber>/s);
  });

  it('a 64 MiB stream is read only a few parts ahead of what the server has taken (never held whole)', async () => {
    const MiB = 1024 * 1024;
    let pulled = 0;
    async function* source() {
      for (let n = 0; n < 64; n++) {
        pulled += MiB;
        yield Buffer.alloc(MiB, n);
      }
    }
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    override = (r) => (r.query.has('partNumber') ? gate.then(() => defaultAnswer(r)) : undefined);
    const writing = storage({ queueSize: 2 }).writeFile('notes', 'doc', 'big.bin', source());
    while (seen.filter((r) => r.query.has('partNumber')).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The README's bound: partSizeBytes × (queueSize + 1). Buffered whole, it would be 64 MiB.
    expect(pulled).toBeLessThanOrEqual((2 + 1) * MIN_PART_SIZE_BYTES);
    release();
    expect(await writing).toBe(64 * MiB);
    expect(seen.filter((r) => r.query.has('partNumber'))).toHaveLength(Math.ceil((64 * MiB) / MIN_PART_SIZE_BYTES));
  });

  it('an async iterable that ends within one part goes up as one PutObject', async () => {
    async function* gen() {
      yield Buffer.from('ab');
      yield Buffer.from('cd');
    }
    expect(await storage().writeFile('notes', 'doc', 's.txt', gen())).toBe(4);
    expect(seen.map((r) => r.method)).toEqual(['PUT']);
    expect(seen[0]!.body.toString()).toBe('abcd');
  });

  it('a stream that fails after a part aborts the multipart upload, completes nothing, and rejects with its own error', async () => {
    async function* failing() {
      yield part(MIN_PART_SIZE_BYTES + 10);
      throw new Error('connection reset');
    }
    const error = await storage()
      .writeFile('notes', 'doc', 'cut.bin', failing())
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('connection reset');
    expect(seen.some((r) => r.method === 'POST' && r.query.has('uploadId'))).toBe(false);
    expect(seen.filter((r) => r.method === 'DELETE').map((r) => r.query.get('uploadId'))).toEqual(['up-1']);
  });

  it('names are checked before anything is sent', async () => {
    const s = storage();
    await expect(s.writeFile('notes', '..', 'f', 'x')).rejects.toSatisfy((e: unknown) => isKmError(e));
    await expect(s.readFile('notes', 'doc', 'a/b')).rejects.toSatisfy((e: unknown) => isKmError(e));
    await expect(s.deleteIndexDirectory('UPPER')).rejects.toSatisfy((e: unknown) => isKmError(e));
    expect(seen).toEqual([]);
  });
});

describe('S3 requests: reads', () => {
  it('a byte range is a GetObject with Range: bytes=start-end', async () => {
    await storage().readFileStream('notes', 'doc', 'r.txt', { start: 30, end: 39 });
    expect(seen[0]).toMatchObject({ method: 'GET', path: '/bkt/notes/doc/r.txt' });
    expect(seen[0]!.headers.range).toBe('bytes=30-39');
  });

  it('a range past the end (416 InvalidRange) is an empty stream; a missing key is file_not_found', async () => {
    override = () => ({ status: 416, xml: s3ErrorXml('InvalidRange') });
    const chunks: Buffer[] = [];
    for await (const c of await storage().readFileStream('notes', 'doc', 'r.txt', { start: 900, end: 999 })) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).length).toBe(0);
    override = () => ({ status: 404, xml: s3ErrorXml('NoSuchKey') });
    await expect(storage().readFileStream('notes', 'doc', 'r.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
    await expect(storage().readFile('notes', 'doc', 'r.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
  });

  it('a download that breaks midway fails the stream with a transient km error', async () => {
    override = () => ({ headers: { etag: '"e1"' }, xml: 'partial', cut: true });
    const stream = await storage().readFileStream('notes', 'doc', 'r.txt');
    const error = await (async () => {
      for await (const _ of stream);
    })().catch((e: unknown) => e);
    expect([isKmError(error, 'transient'), (error as { transient?: boolean }).transient]).toEqual([true, true]);
  });

  it('a backwards range is refused before anything is sent', async () => {
    await expect(storage().readFileStream('notes', 'doc', 'r.txt', { start: 5, end: 4 })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_argument'),
    );
    expect(seen).toEqual([]);
  });
});

describe('S3 requests: listing and deletion', () => {
  it('listFiles pages with ListObjectsV2, Delimiter / and the continuation token', async () => {
    override = (r) =>
      r.query.get('continuation-token') === 'page-2'
        ? { xml: listXml(['km/notes/doc/b.txt'], []) }
        : { xml: listXml(['km/notes/doc/a.txt'], ['km/notes/doc/sub/'], 'page-2') };
    const files = await storage({ prefix: 'km/' }).listFiles('notes', 'doc');
    expect(files.map((f) => [f.name, f.size])).toEqual([
      ['a.txt', 3],
      ['b.txt', 3],
    ]);
    expect(
      seen.map((r) => [r.query.get('list-type'), r.query.get('prefix'), r.query.get('delimiter'), r.query.get('continuation-token')]),
    ).toEqual([
      ['2', 'km/notes/doc/', '/', null],
      ['2', 'km/notes/doc/', '/', 'page-2'],
    ]);
  });

  it('listIndexes and listDocuments read common prefixes; folders that are no index name are left out', async () => {
    override = (r) =>
      r.query.get('prefix') === 'km/notes/'
        ? { xml: listXml([], ['km/notes/doc-2/', 'km/notes/doc-1/']) }
        : { xml: listXml(['km/loose.txt'], ['km/notes/', 'km/Not An Index/', 'km/other/']) };
    expect(await storage({ prefix: 'km/' }).listIndexes()).toEqual(['notes', 'other']);
    expect(seen[0]!.query.get('prefix')).toBe('km/');
    expect(await storage({ prefix: 'km/' }).listDocuments('notes')).toEqual(['doc-1', 'doc-2']);
  });

  it('deleting an index lists everything under it (no delimiter) and deletes each page with one quiet DeleteObjects', async () => {
    const page1 = Array.from({ length: 1000 }, (_, i) => `notes/d${i}/f.txt`);
    override = (r) => {
      if (r.query.get('list-type') !== '2') return undefined;
      return r.query.get('continuation-token') === 'next'
        ? { xml: listXml(['notes/z/1', 'notes/z/2'], []) }
        : { xml: listXml(page1, [], 'next') };
    };
    await storage().deleteIndexDirectory('notes');
    const lists = seen.filter((r) => r.method === 'GET');
    expect(lists.map((r) => [r.query.get('prefix'), r.query.has('delimiter')])).toEqual([
      ['notes/', false],
      ['notes/', false],
    ]);
    const deletes = seen.filter((r) => r.method === 'POST' && r.query.has('delete'));
    expect(deletes.map((r) => (r.body.toString().match(/<Key>/g) ?? []).length)).toEqual([1000, 2]);
    expect(deletes[0]!.body.toString()).toContain('<Quiet>true</Quiet>');
    expect(deletes[1]!.body.toString()).toContain('<Key>notes/z/2</Key>');
  });

  it('keys DeleteObjects could not delete fail the call', async () => {
    override = (r) => {
      if (r.query.get('list-type') === '2') return { xml: listXml(['notes/d/f'], []) };
      if (r.query.has('delete'))
        return { xml: '<DeleteResult><Error><Key>notes/d/f</Key><Code>AccessDenied</Code><Message>no</Message></Error></DeleteResult>' };
      return undefined;
    };
    await expect(storage().deleteDocumentDirectory('notes', 'd')).rejects.toSatisfy((e: unknown) => isKmError(e, 'upstream_error'));
  });
});

describe('S3 requests: conditional writes', () => {
  it('null sends If-None-Match: *, a version sends If-Match: <etag>, and the new ETag comes back', async () => {
    const s = storage({ conditionalWrites: true });
    expect(await s.writeFileIfVersion!('notes', 'doc', 'state.json', '{}', null)).toBe('"etag-put"');
    expect(await s.writeFileIfVersion!('notes', 'doc', 'state.json', '{}', '"e1"')).toBe('"etag-put"');
    expect([seen[0]!.headers['if-none-match'], seen[0]!.headers['if-match']]).toEqual(['*', undefined]);
    expect([seen[1]!.headers['if-none-match'], seen[1]!.headers['if-match']]).toEqual([undefined, '"e1"']);
    expect(await s.readFileVersion!('notes', 'doc', 'state.json')).toEqual({ data: Buffer.from('hello'), version: '"e1"' });
  });

  for (const [status, code] of [
    [412, 'PreconditionFailed'],
    [409, 'ConditionalRequestConflict'],
    [404, 'NoSuchKey'],
  ] as const) {
    it(`${status} ${code} on a conditional write is a transient write_conflict`, async () => {
      override = () => ({ status, xml: s3ErrorXml(code) });
      await expect(storage({ conditionalWrites: true }).writeFileIfVersion!('notes', 'doc', 'state.json', 'x', '"e1"')).rejects.toSatisfy(
        (e: unknown) => isKmError(e, 'write_conflict') && (e as { transient: boolean }).transient,
      );
    });
  }

  it('off (the default with a custom endpoint), the instance has neither method; on, it has both', () => {
    const offByEndpoint = new S3ContentStorage({ bucket: 'bkt', endpoint: recorder.url, accessKeyId: 'k', secretAccessKey: 's' });
    expect([offByEndpoint.readFileVersion, offByEndpoint.writeFileIfVersion, 'readFileVersion' in offByEndpoint]).toEqual([
      undefined,
      undefined,
      false,
    ]);
    expect(storage().conditionalWrites).toBe(false); // a client with a custom endpoint
    const aws = new S3ContentStorage({ bucket: 'bkt', region: 'eu-west-1' });
    expect([typeof aws.readFileVersion, typeof aws.writeFileIfVersion]).toEqual(['function', 'function']);
    expect(new S3ContentStorage({ bucket: 'bkt', conditionalWrites: false }).writeFileIfVersion).toBeUndefined();
  });
});

describe('S3 requests: bucket and errors', () => {
  it('createBucket: HeadBucket, then CreateBucket with the region as LocationConstraint, once', async () => {
    override = (r) => (r.method === 'HEAD' && r.path.replace(/\/$/, '') === '/bkt' ? { status: 404 } : undefined);
    const s = storage({ createBucket: true, region: 'eu-west-1' });
    await s.writeFile('notes', 'doc', 'a.txt', 'x');
    await s.writeFile('notes', 'doc', 'b.txt', 'x');
    expect(seen.map((r) => `${r.method} ${r.path.replace(/\/$/, '')}`)).toEqual([
      'HEAD /bkt',
      'PUT /bkt',
      'PUT /bkt/notes/doc/a.txt',
      'PUT /bkt/notes/doc/b.txt',
    ]);
    expect(seen[1]!.body.toString()).toContain('<LocationConstraint>eu-west-1</LocationConstraint>');
  });

  it('a missing bucket is not_configured; 403 unauthorized; 503 SlowDown rate_limited; 500 transient', async () => {
    const cases: Array<[number, string, string, boolean]> = [
      [404, 'NoSuchBucket', 'not_configured', false],
      [403, 'AccessDenied', 'unauthorized', false],
      [403, 'SignatureDoesNotMatch', 'unauthorized', false],
      [503, 'SlowDown', 'rate_limited', true],
      [500, 'InternalError', 'transient', true],
    ];
    for (const [status, code, kmCode, transient] of cases) {
      override = () => ({ status, xml: s3ErrorXml(code) });
      const error = await storage()
        .listIndexes()
        .catch((e: unknown) => e);
      expect([code, isKmError(error, kmCode as never), (error as { transient?: boolean }).transient]).toEqual([code, true, transient]);
    }
  });

  it('fileExists is false on a bare 404 (HeadObject has no body) and throws on 403', async () => {
    override = () => ({ status: 404 });
    expect(await storage().fileExists('notes', 'doc', 'a.txt')).toBe(false);
    override = () => ({ status: 403 });
    await expect(storage().fileExists('notes', 'doc', 'a.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
  });
});
