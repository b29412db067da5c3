import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { isKmError, type SyncItem } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type S3SourceOptions, type SkippedS3Object, s3Source } from '../src/index.js';
import { type S3Answer, type S3Recorder, type S3Request, s3ErrorXml, startS3Recorder } from './s3-recorder.js';

// The recorder answers like S3's REST API, to check the requests the source sends and the rules it
// applies to what it is given (ids, versions, skips). Whether it works against a server is proven
// on s3rver in tests-integration/test/sync-source-s3.test.ts.
let recorder: S3Recorder;
let answer: (r: S3Request) => S3Answer;

interface Listed {
  key: string;
  etag?: string;
  size?: number;
}
const listXml = (objects: Listed[], next?: string) =>
  `<ListBucketResult><Name>bkt</Name><KeyCount>${objects.length}</KeyCount><IsTruncated>${next ? 'true' : 'false'}</IsTruncated>${
    next ? `<NextContinuationToken>${next}</NextContinuationToken>` : ''
  }${objects
    .map(
      (o) =>
        `<Contents><Key>${o.key}</Key>${o.etag !== undefined ? `<ETag>${o.etag}</ETag>` : ''}<Size>${o.size ?? 3}</Size><LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents>`,
    )
    .join('')}</ListBucketResult>`;

beforeAll(async () => {
  recorder = await startS3Recorder((r) => answer(r));
});
afterAll(() => recorder.close());
beforeEach(() => {
  recorder.requests.length = 0;
  answer = () => ({ xml: listXml([]) });
});

const client = () =>
  new S3Client({
    endpoint: recorder.url,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
const source = (options: Partial<S3SourceOptions> = {}) => s3Source({ bucket: 'bkt', client: client(), ...options });

async function listed(options: Partial<S3SourceOptions> = {}): Promise<SyncItem[]> {
  const items: SyncItem[] = [];
  for await (const item of source(options).list()) items.push(item);
  return items;
}

const refused = (options: Partial<S3SourceOptions>, text: RegExp) =>
  expect(() => source(options)).toThrow(expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(text) }));

describe('s3Source', () => {
  it('is kind s3 with id s3://bucket/prefix, the prefix ending in / (docs syncs docs/…, not docs-old/…); id overrides it', () => {
    expect(source({ prefix: 'team/docs' })).toMatchObject({ kind: 's3', id: 's3://bkt/team/docs/', prefix: 'team/docs/' });
    expect(source({ prefix: 'team/docs/' }).id).toBe('s3://bkt/team/docs/');
    expect(source().id).toBe('s3://bkt/');
    expect(source({ prefix: 'x', id: 'handbook' }).id).toBe('handbook');
  });

  it('lists every page under the prefix: ids relative to it, ETags without quotes as versions, basenames as file names', async () => {
    answer = (r) =>
      r.query.get('continuation-token') === 'page-2'
        ? { xml: listXml([{ key: 'docs/sub/c.pdf', etag: '"9b2cf535f27731c974343645a3985328-3"' }]) }
        : {
            xml: listXml(
              [
                { key: 'docs/a.md', etag: '"e1"' },
                { key: 'docs/b.txt', etag: '&quot;e2&quot;' },
              ],
              'page-2',
            ),
          };
    const items = await listed({ prefix: 'docs', pageSize: 2 });
    expect(items.map(({ id, version, fileName }) => ({ id, version, fileName }))).toEqual([
      { id: 'a.md', version: 'e1', fileName: 'a.md' },
      { id: 'b.txt', version: 'e2', fileName: 'b.txt' },
      { id: 'sub/c.pdf', version: '9b2cf535f27731c974343645a3985328-3', fileName: 'c.pdf' },
    ]);
    const lists = recorder.requests.filter((r) => r.query.get('list-type') === '2');
    expect(lists.map((r) => [r.path, r.query.get('prefix'), r.query.get('max-keys'), r.query.get('continuation-token')])).toEqual([
      ['/bkt/', 'docs/', '2', null],
      ['/bkt/', 'docs/', '2', 'page-2'],
    ]);
    expect(lists.every((r) => !r.query.has('delimiter'))).toBe(true);
  });

  it('a server without ETags gives size and modification time as the version', async () => {
    answer = () => ({ xml: listXml([{ key: 'a.md', size: 7 }]) });
    expect((await listed())[0]!.version).toBe('7@2026-01-01T00:00:00.000Z');
  });

  it('leaves out folder markers, keys the globs do not take, and objects over maxObjectBytes (reported to onSkip)', async () => {
    answer = () => ({
      xml: listXml([
        { key: 'p/', etag: '"d"', size: 0 },
        { key: 'p/guide/', etag: '"d"', size: 0 },
        { key: 'p/guide/intro.md', etag: '"1"' },
        { key: 'p/guide/.hidden/x.md', etag: '"2"' },
        { key: 'p/guide/big.md', etag: '"3"', size: 101 },
        { key: 'p/guide/exact.md', etag: '"4"', size: 100 },
        { key: 'p/drafts/wip.md', etag: '"5"' },
        { key: 'p/image.png', etag: '"6"' },
      ]),
    });
    const skipped: SkippedS3Object[] = [];
    const items = await listed({
      prefix: 'p/',
      include: ['**/*.md'],
      exclude: ['drafts/**'],
      maxObjectBytes: 100,
      onSkip: (s) => skipped.push(s),
    });
    expect(items.map((i) => i.id)).toEqual(['guide/intro.md', 'guide/.hidden/x.md', 'guide/exact.md']);
    expect(skipped).toEqual([{ id: 'guide/big.md', key: 'p/guide/big.md', size: 101, reason: 'too_large' }]);
  });

  it('gives every item a copy of the source tags', async () => {
    answer = () => ({
      xml: listXml([
        { key: 'a.md', etag: '"1"' },
        { key: 'b.md', etag: '"2"' },
      ]),
    });
    const [a, b] = await listed({ tags: { team: ['docs'] } });
    expect(a!.tags).toEqual({ team: ['docs'] });
    a!.tags!.team!.push('x');
    expect(b!.tags).toEqual({ team: ['docs'] });
  });

  it('open() reads the object by its full key', async () => {
    answer = (r) =>
      r.query.get('list-type') === '2'
        ? { xml: listXml([{ key: 'docs/sub/a.md', etag: '"1"' }]) }
        : { xml: '# hello', headers: { etag: '"1"', 'content-length': '7' } };
    const [item] = await listed({ prefix: 'docs' });
    const content = await item!.open();
    const chunks: Buffer[] = [];
    for await (const c of content instanceof Readable ? content : [content]) chunks.push(Buffer.from(c));
    expect(Buffer.concat(chunks).toString()).toBe('# hello');
    const get = recorder.requests.at(-1)!;
    expect([get.method, get.path, get.query.has('list-type')]).toEqual(['GET', '/bkt/docs/sub/a.md', false]);
  });

  it('open() of an object deleted since the listing is file_not_found', async () => {
    answer = (r) =>
      r.query.get('list-type') === '2' ? { xml: listXml([{ key: 'a.md', etag: '"1"' }]) } : { status: 404, xml: s3ErrorXml('NoSuchKey') };
    const [item] = await listed();
    await expect(item!.open()).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
  });

  it('a page that fails fails the listing with a km error, after the items of the pages before it', async () => {
    answer = (r) =>
      r.query.get('continuation-token') === 'p2'
        ? { status: 403, xml: s3ErrorXml('AccessDenied') }
        : { xml: listXml([{ key: 'a.md', etag: '"1"' }], 'p2') };
    const seen: string[] = [];
    const run = async () => {
      for await (const item of source().list()) seen.push(item.id);
    };
    await expect(run()).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
    expect(seen).toEqual(['a.md']);
    answer = () => ({ status: 404, xml: s3ErrorXml('NoSuchBucket') });
    await expect(listed()).rejects.toSatisfy(
      (e: unknown) => isKmError(e, 'not_configured') && (e as Error).message === '[km] [s3] bucket "bkt" does not exist',
    );
  });

  it('an aborted listing is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = async () => {
      for await (const _ of source().list(controller.signal));
    };
    await expect(run()).rejects.toSatisfy((e: unknown) => isKmError(e, 'aborted'));
    expect(recorder.requests).toEqual([]);
  });

  it('refuses bad options with invalid_argument', () => {
    refused({ bucket: 'Not_A_Bucket' }, /s3Source: bucket/);
    refused({ prefix: '/abs' }, /prefix/);
    refused({ include: [''] }, /include must be a list/);
    refused({ exclude: 'drafts/**' as never }, /exclude must be a list/);
    refused({ maxObjectBytes: -1 }, /maxObjectBytes/);
    refused({ pageSize: 1001 }, /pageSize/);
    refused({ id: ' ' }, /id must be/);
    expect(() => source({ tags: { __sync_source: ['x'] } })).toThrow(expect.objectContaining({ code: 'invalid_tag' }));
  });
});
