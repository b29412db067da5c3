import { createHash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { isKmError } from '@km/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3ContentStorage, type S3ContentStorageOptions } from '../src/index.js';
import { type S3Answer, type S3Recorder, type S3Request, s3ErrorXml, startS3Recorder } from './s3-recorder.js';

// DeleteObjects on S3-compatible servers: the SDK sends a CRC32 checksum and no Content-MD5, which
// older MinIO and other S3 clones refuse (MissingContentMD5). These tests check the request shape
// and the fallback against a local recorder.
let recorder: S3Recorder;
let seen: S3Request[];
let listed: string[];
let onDelete: (r: S3Request) => S3Answer | Promise<S3Answer>;

const listXml = (keys: string[]) =>
  `<ListBucketResult><Name>bkt</Name><KeyCount>${keys.length}</KeyCount><IsTruncated>false</IsTruncated>${keys
    .map((k) => `<Contents><Key>${k}</Key><Size>1</Size></Contents>`)
    .join('')}</ListBucketResult>`;

const isBatchDelete = (r: S3Request) => r.method === 'POST' && r.query.has('delete');

beforeAll(async () => {
  recorder = await startS3Recorder((r) => {
    if (r.method === 'GET' && r.query.get('list-type') === '2') return { xml: listXml(listed) };
    if (isBatchDelete(r)) return onDelete(r);
    if (r.method === 'DELETE') return { status: 204 };
    return {};
  });
  seen = recorder.requests;
});
afterAll(() => recorder.close());
beforeEach(() => {
  seen.length = 0;
  listed = ['notes/doc/a.txt', 'notes/doc/b.txt'];
  onDelete = () => ({ xml: '<DeleteResult></DeleteResult>' });
});

const credentials = { accessKeyId: 'k', secretAccessKey: 's' };
/** A storage that builds its own client for the recorder's (custom) endpoint. */
const built = (options: Partial<S3ContentStorageOptions> = {}) =>
  new S3ContentStorage({ bucket: 'bkt', endpoint: recorder.url, forcePathStyle: true, ...credentials, ...options });
/** A storage on a client of your own with a custom endpoint. */
const given = () =>
  new S3ContentStorage({
    bucket: 'bkt',
    client: new S3Client({ endpoint: recorder.url, forcePathStyle: true, region: 'us-east-1', credentials, maxAttempts: 1 }),
  });

const md5 = (body: Buffer) => createHash('md5').update(body).digest('base64');
const singleDeletes = () =>
  seen
    .filter((r) => r.method === 'DELETE')
    .map((r) => r.path)
    .sort();

describe('DeleteObjects on a custom endpoint', () => {
  for (const [what, storage] of [
    ['a client the storage builds', built],
    ['a client of your own', given],
  ] as const) {
    it(`carries Content-MD5 of its XML body and no CRC32 checksum (${what})`, async () => {
      const s = storage();
      await s.deleteDocumentDirectory('notes', 'doc');
      await s.close();
      const deletes = seen.filter(isBatchDelete);
      expect(deletes).toHaveLength(1);
      const request = deletes[0]!;
      expect(request.body.toString()).toContain('<Key>notes/doc/b.txt</Key>');
      expect(request.headers['content-md5']).toBe(md5(request.body));
      expect(Object.keys(request.headers).filter((h) => h.startsWith('x-amz-checksum-') || h.startsWith('x-amz-sdk-checksum-'))).toEqual(
        [],
      );
    });
  }
});

describe('servers that refuse DeleteObjects', () => {
  for (const [status, code] of [
    [400, 'MissingContentMD5'],
    [400, 'InvalidRequest'],
    [501, 'NotImplemented'],
  ] as const) {
    it(`${status} ${code}: each key is deleted with its own DeleteObject`, async () => {
      onDelete = () => ({ status, xml: s3ErrorXml(code) });
      await built().deleteDocumentDirectory('notes', 'doc');
      expect(singleDeletes()).toEqual(['/bkt/notes/doc/a.txt', '/bkt/notes/doc/b.txt']);
    });
  }

  it('the single deletes go 16 at a time, and later deletions skip DeleteObjects', async () => {
    listed = Array.from({ length: 40 }, (_, i) => `notes/doc/f${String(i).padStart(2, '0')}`);
    onDelete = () => ({ status: 400, xml: s3ErrorXml('MissingContentMD5') });
    // Each DeleteObject is held until 16 are in flight (or the last keys are), then 50 ms more: more
    // than 16 at once shows as `most` above 16, fewer keeps them held until the 1 s safety release.
    let inFlight = 0;
    let started = 0;
    let most = 0;
    let held: Array<() => void> = [];
    const releaseAll = () => {
      for (const release of held) release();
      held = [];
    };
    const slow = await startS3Recorder(async (r) => {
      if (r.method === 'GET') return { xml: listXml(listed) };
      if (isBatchDelete(r)) return onDelete(r);
      inFlight++;
      started++;
      most = Math.max(most, inFlight);
      const released = new Promise<void>((resolve) => {
        held.push(resolve);
        setTimeout(resolve, 1000);
      });
      if (inFlight === 16 || started === listed.length) setTimeout(releaseAll, 50); // time for a 17th to show up
      await released;
      inFlight--;
      return { status: 204 };
    });
    try {
      const s = new S3ContentStorage({ bucket: 'bkt', endpoint: slow.url, forcePathStyle: true, ...credentials });
      await s.deleteDocumentDirectory('notes', 'doc');
      expect(slow.requests.filter((r) => r.method === 'DELETE')).toHaveLength(40);
      expect(most).toBe(16);
      slow.requests.length = 0;
      started = 0;
      await s.deleteIndexDirectory('notes');
      expect(slow.requests.filter(isBatchDelete)).toEqual([]);
      expect(slow.requests.filter((r) => r.method === 'DELETE')).toHaveLength(40);
      await s.close();
    } finally {
      await slow.close();
    }
  });

  it('other DeleteObjects errors are not retried one by one', async () => {
    onDelete = () => ({ status: 403, xml: s3ErrorXml('AccessDenied') });
    await expect(built().deleteDocumentDirectory('notes', 'doc')).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
    expect(singleDeletes()).toEqual([]);
  });

  it('a single DeleteObject that fails fails the call, translated', async () => {
    onDelete = () => ({ status: 400, xml: s3ErrorXml('MissingContentMD5') });
    const failing = await startS3Recorder((r) => {
      if (r.method === 'GET') return { xml: listXml(listed) };
      if (isBatchDelete(r)) return onDelete(r);
      return r.path.endsWith('b.txt') ? { status: 403, xml: s3ErrorXml('AccessDenied') } : { status: 204 };
    });
    try {
      const s = new S3ContentStorage({ bucket: 'bkt', endpoint: failing.url, forcePathStyle: true, ...credentials });
      await expect(s.deleteDocumentDirectory('notes', 'doc')).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
      await s.close();
    } finally {
      await failing.close();
    }
  });
});
