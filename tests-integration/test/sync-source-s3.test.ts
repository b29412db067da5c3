import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { isKmError, type SyncItem } from '@km/core';
import { s3Source } from '@km/storage-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3Server } from '../src/s3-server.js';
import { readItem } from '../src/sync-items.js';
import { runSyncScenario } from '../src/sync-scenario.js';

// s3Source on s3rver from npm: what it lists under a prefix, and how its versions follow the objects.
const s3rver = await startS3Server();
const rawClient = () =>
  new S3Client({
    endpoint: s3rver.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: S3RVER_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
const raw = rawClient();
afterAll(async () => {
  raw.destroy();
  await s3rver.stop();
});

const newBucket = async () => {
  const bucket = `kmsync-${randomUUID().slice(0, 8)}`;
  await raw.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
};
const put = async (bucket: string, key: string, body: string) =>
  (await raw.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: Buffer.byteLength(body) }))).ETag!.replaceAll(
    '"',
    '',
  );
const sourceOn = (bucket: string, options: Partial<Parameters<typeof s3Source>[0]> = {}) =>
  s3Source({ bucket, prefix: 'kb', endpoint: s3rver.endpoint, forcePathStyle: true, ...S3RVER_CREDENTIALS, ...options });

async function listAll(source: { list(): AsyncIterable<SyncItem> }): Promise<Map<string, SyncItem>> {
  const items = new Map<string, SyncItem>();
  for await (const item of source.list()) items.set(item.id, item);
  return items;
}

describe(`s3Source on ${s3rver.name}`, () => {
  it('lists the objects under the prefix over several pages, with their ETags as versions and their content through open()', async () => {
    const bucket = await newBucket();
    const etags: Record<string, string> = {};
    const contents: Record<string, string> = {};
    for (let n = 0; n < 5; n++) {
      const id = n % 2 === 0 ? `note-${n}.md` : `deep/er/note-${n}.txt`;
      contents[id] = `note number ${n}`;
      etags[id] = await put(bucket, `kb/${id}`, contents[id]);
    }
    // Outside the prefix, or a string prefix of it without the '/', and a folder marker: not listed.
    await put(bucket, 'kb-old/stale.md', 'old');
    await put(bucket, 'other/x.md', 'other');
    await put(bucket, 'kbnote.md', 'no slash');
    await put(bucket, 'kb/empty/', '');
    // Through a client of the test's own, which counts the listing requests.
    const client = rawClient();
    let listings = 0;
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'ListObjectsV2Command') listings++;
        return next(args);
      },
      { step: 'initialize' },
    );
    const source = s3Source({ bucket, prefix: 'kb/', client, pageSize: 2 });
    expect(source.id).toBe(`s3://${bucket}/kb/`);
    const items = await listAll(source);
    expect([...items.keys()].sort()).toEqual(Object.keys(contents).sort());
    expect(listings).toBeGreaterThanOrEqual(3); // 5 objects, 2 a page (and the folder marker)
    for (const [id, item] of items) {
      expect(item.version).toBe(etags[id]);
      expect(item.fileName).toBe(id.split('/').at(-1));
      expect(await readItem(item)).toBe(contents[id]);
    }
    await source.close();
    expect(await client.send(new CreateBucketCommand({ Bucket: `${bucket}-2` }))).toBeDefined(); // close() left the caller's client open
    client.destroy();
  });

  it('an object rewritten with other content gets a new version; the others keep theirs; a deleted one is no longer listed', async () => {
    const bucket = await newBucket();
    for (const name of ['a.md', 'b.md', 'c.md']) await put(bucket, `kb/${name}`, `first ${name}`);
    const source = sourceOn(bucket);
    const before = await listAll(source);
    await put(bucket, 'kb/b.md', 'second b.md');
    await raw.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'kb/c.md' }));
    const after = await listAll(source);
    expect([...after.keys()].sort()).toEqual(['a.md', 'b.md']);
    expect(after.get('a.md')!.version).toBe(before.get('a.md')!.version);
    expect(after.get('b.md')!.version).not.toBe(before.get('b.md')!.version);
    expect(await readItem(after.get('b.md')!)).toBe('second b.md');
    // Rewriting the same bytes is not a change.
    await put(bucket, 'kb/a.md', 'first a.md');
    expect((await listAll(source)).get('a.md')!.version).toBe(before.get('a.md')!.version);
    // An item whose object went away between the listing and the read.
    await expect(before.get('c.md')!.open()).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
    await source.close();
  });

  it('a missing bucket fails the listing with not_configured; an unknown access key with unauthorized', async () => {
    const missing = sourceOn(`kmsync-missing-${randomUUID().slice(0, 8)}`);
    await expect(listAll(missing)).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
    const bucket = await newBucket();
    const stranger = sourceOn(bucket, { accessKeyId: 'NOBODY' });
    await expect(listAll(stranger)).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
    for (const s of [missing, stranger]) await s.close();
  });
});

describe(`memory.sync(s3Source) on ${s3rver.name}`, () => {
  it('adds N objects, then syncs one edit, one deletion and one addition as 1 updated, 1 deleted, 1 added; search finds the edit', async () => {
    const bucket = await newBucket();
    const source = sourceOn(bucket, { prefix: 'handbook/' });
    await runSyncScenario(
      {
        put: async (key, body) => void (await put(bucket, `handbook/${key}`, body)),
        putOutside: async (key, body) => void (await put(bucket, key, body)),
        remove: async (key) => void (await raw.send(new DeleteObjectCommand({ Bucket: bucket, Key: `handbook/${key}` }))),
      },
      source,
    );
    await source.close();
  });
});
