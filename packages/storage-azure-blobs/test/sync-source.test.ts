import { PassThrough } from 'node:stream';
import type { BlobItem, ContainerClient } from '@azure/storage-blob';
import { isKmError, type SyncItem } from '@km/core';
import { describe, expect, it } from 'vitest';
import { type AzureBlobSourceOptions, azureBlobSource, type SkippedBlob } from '../src/index.js';

// A stand-in for the SDK's ContainerClient that records what the source asks for and answers pages
// as told: it checks the source's rules (ids, versions, skips) and request shapes only. Whether the
// source works against a blob service is proven on Azurite in tests-integration/test/sync-source-azure-blobs.test.ts.
const KEY = Buffer.alloc(64, 1).toString('base64');

interface Blob {
  name: string;
  etag?: string;
  size?: number;
  contentType?: string;
  folder?: boolean;
}
const blobItem = (b: Blob): BlobItem =>
  ({
    name: b.name,
    deleted: false,
    snapshot: '',
    properties: {
      etag: b.etag,
      contentLength: b.size ?? 3,
      contentType: b.contentType,
      lastModified: new Date('2026-01-01T00:00:00.000Z'),
    },
    ...(b.folder ? { metadata: { hdi_isfolder: 'true' } } : {}),
  }) as BlobItem;

function fakeContainer(pages: Array<Blob[] | Error>, downloads: Record<string, string | Error> = {}) {
  const calls: unknown[] = [];
  const container = {
    containerName: 'docs',
    accountName: 'acct',
    url: 'https://acct.blob.core.windows.net/docs',
    listBlobsFlat(options: unknown) {
      calls.push(['listBlobsFlat', options]);
      return {
        byPage(settings: unknown) {
          calls.push(['byPage', settings]);
          return (async function* () {
            for (const page of pages) {
              if (page instanceof Error) throw page;
              yield { segment: { blobItems: page.map(blobItem) } };
            }
          })();
        },
      };
    },
    getBlobClient(name: string) {
      return {
        async download(offset: number, count: number | undefined) {
          calls.push(['download', name, offset, count]);
          const answer = downloads[name];
          if (answer instanceof Error) throw answer;
          const body = new PassThrough();
          body.end(answer ?? '');
          return { readableStreamBody: body };
        },
      };
    },
  };
  return { container: container as unknown as ContainerClient, calls };
}

const restError = (statusCode: number, code: string) => Object.assign(new Error(code), { name: 'RestError', statusCode, code });

async function listed(options: AzureBlobSourceOptions): Promise<SyncItem[]> {
  const items: SyncItem[] = [];
  for await (const item of azureBlobSource(options).list()) items.push(item);
  return items;
}

const refused = (options: AzureBlobSourceOptions, text: RegExp) =>
  expect(() => azureBlobSource(options)).toThrow(
    expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(text) }),
  );

describe('azureBlobSource', () => {
  it('is kind azure-blob with id azure-blob://account/container/prefix, the prefix ending in /; id overrides it', () => {
    const { container } = fakeContainer([]);
    expect(azureBlobSource({ containerClient: container, prefix: 'team/handbook' })).toMatchObject({
      kind: 'azure-blob',
      id: 'azure-blob://acct/docs/team/handbook/',
      prefix: 'team/handbook/',
    });
    expect(azureBlobSource({ accountName: 'acct', accountKey: KEY, container: 'docs' }).id).toBe('azure-blob://acct/docs/');
    // Azurite's path-style endpoint: the account is the first segment of the path.
    const cs = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=http://127.0.0.1:2/devstoreaccount1;`;
    expect(azureBlobSource({ connectionString: cs, container: 'kbase', prefix: 'x/' }).id).toBe('azure-blob://devstoreaccount1/kbase/x/');
    expect(azureBlobSource({ containerClient: container, id: 'handbook' }).id).toBe('handbook');
  });

  it('lists every page under the prefix: ids relative to it, ETags without quotes as versions, basenames as file names', async () => {
    const { container, calls } = fakeContainer([
      [
        { name: 'hb/a.md', etag: '"0x8DC1"' },
        { name: 'hb/b.txt', etag: '0x8DC2', contentType: 'text/plain' },
      ],
      [{ name: 'hb/sub/c.pdf', etag: '"0x8DC3"', contentType: 'application/octet-stream' }],
    ]);
    const items = await listed({ containerClient: container, prefix: 'hb', pageSize: 2 });
    expect(items.map(({ id, version, fileName, mimeType }) => ({ id, version, fileName, mimeType }))).toEqual([
      { id: 'a.md', version: '0x8DC1', fileName: 'a.md', mimeType: undefined },
      { id: 'b.txt', version: '0x8DC2', fileName: 'b.txt', mimeType: 'text/plain' },
      { id: 'sub/c.pdf', version: '0x8DC3', fileName: 'c.pdf', mimeType: undefined },
    ]);
    expect(calls).toEqual([
      ['listBlobsFlat', { prefix: 'hb/', includeMetadata: true }],
      ['byPage', { maxPageSize: 2 }],
    ]);
  });

  it('leaves out folder blobs, names the globs do not take, and blobs over maxBlobBytes (reported to onSkip)', async () => {
    const { container } = fakeContainer([
      [
        { name: 'guide/', etag: 'd', size: 0 },
        { name: 'guide/sub', etag: 'd', size: 0, folder: true },
        { name: 'guide/intro.md', etag: '1' },
        { name: 'guide/big.md', etag: '2', size: 101 },
        { name: 'guide/exact.md', etag: '3', size: 100 },
        { name: 'drafts/wip.md', etag: '4' },
        { name: 'image.png', etag: '5' },
      ],
    ]);
    const skipped: SkippedBlob[] = [];
    const items = await listed({
      containerClient: container,
      include: ['**/*.md'],
      exclude: ['drafts/**'],
      maxBlobBytes: 100,
      onSkip: (s) => skipped.push(s),
    });
    expect(items.map((i) => i.id)).toEqual(['guide/intro.md', 'guide/exact.md']);
    expect(skipped).toEqual([{ id: 'guide/big.md', name: 'guide/big.md', size: 101, reason: 'too_large' }]);
  });

  it('open() downloads the whole blob by its full name; a blob deleted since the listing is file_not_found', async () => {
    const { container, calls } = fakeContainer(
      [
        [
          { name: 'hb/a.md', etag: '1' },
          { name: 'hb/gone.md', etag: '2' },
        ],
      ],
      {
        'hb/a.md': '# hello',
        'hb/gone.md': restError(404, 'BlobNotFound'),
      },
    );
    const [a, gone] = await listed({ containerClient: container, prefix: 'hb/', tags: { team: ['docs'] } });
    const chunks: Buffer[] = [];
    for await (const c of (await a!.open()) as AsyncIterable<Buffer>) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe('# hello');
    expect(calls.at(-1)).toEqual(['download', 'hb/a.md', 0, undefined]);
    expect(a!.tags).toEqual({ team: ['docs'] });
    await expect(gone!.open()).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
  });

  it('a page that fails fails the listing with a km error; a missing container is not_configured', async () => {
    const { container } = fakeContainer([[{ name: 'a.md', etag: '1' }], restError(403, 'AuthorizationFailure')]);
    const seen: string[] = [];
    const run = async () => {
      for await (const item of azureBlobSource({ containerClient: container }).list()) seen.push(item.id);
    };
    await expect(run()).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
    expect(seen).toEqual(['a.md']);
    const missing = fakeContainer([restError(404, 'ContainerNotFound')]).container;
    await expect(listed({ containerClient: missing })).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
  });

  it('an aborted listing is aborted; an onSkip that throws does not stop the listing', async () => {
    const controller = new AbortController();
    controller.abort();
    const { container } = fakeContainer([[{ name: 'a.md', etag: '1' }]]);
    const run = async () => {
      for await (const _ of azureBlobSource({ containerClient: container }).list(controller.signal));
    };
    await expect(run()).rejects.toSatisfy((e: unknown) => isKmError(e, 'aborted'));
    const big = fakeContainer([
      [
        { name: 'big.md', etag: '1', size: 9 },
        { name: 'a.md', etag: '2' },
      ],
    ]).container;
    const items = await listed({
      containerClient: big,
      maxBlobBytes: 5,
      onSkip: () => {
        throw new Error('a bad callback');
      },
    });
    expect(items.map((i) => i.id)).toEqual(['a.md']);
  });

  it('refuses bad options with invalid_argument', () => {
    const { container } = fakeContainer([]);
    refused({ connectionString: 'UseDevelopmentStorage=true' }, /container is required/);
    refused({ containerClient: container, container: 'other' }, /is not the container of the given client/);
    refused({ containerClient: container, prefix: '/abs' }, /prefix/);
    refused(
      { connectionString: 'UseDevelopmentStorage=true', container: 'kb' },
      /^\[km\] \[azureblobs\] azureBlobSource: the container name "kb" \(option container\)/,
    );
    refused({ containerClient: container, include: [''] }, /include must be a list/);
    refused({ containerClient: container, maxBlobBytes: 1.5 }, /maxBlobBytes/);
    refused({ containerClient: container, pageSize: 0 }, /pageSize/);
    expect(() => azureBlobSource({ containerClient: container, tags: { __sync_item: ['x'] } })).toThrow(
      expect.objectContaining({ code: 'invalid_tag' }),
    );
  });
});
