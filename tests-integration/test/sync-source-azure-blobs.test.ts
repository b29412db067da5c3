import { randomUUID } from 'node:crypto';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { isKmError, type SyncItem } from '@km/core';
import { azureBlobSource } from '@km/storage-azure-blobs';
import { afterAll, describe, expect, it } from 'vitest';
import { startAzureBlobBackend } from '../src/azurite.js';
import { readItem } from '../src/sync-items.js';
import { runSyncScenario } from '../src/sync-scenario.js';

// azureBlobSource on Azurite from npm (or KM_TEST_AZURE_BLOBS_CONNECTION_STRING): what it lists
// under a prefix, and how its versions follow the blobs.
const azure = await startAzureBlobBackend();
const service = BlobServiceClient.fromConnectionString(azure.connectionString);
const containers: ContainerClient[] = [];
afterAll(async () => {
  for (const c of containers) await c.deleteIfExists().catch(() => undefined);
  await azure.stop();
});

const newContainer = async () => {
  const container = service.getContainerClient(`kmsync-${randomUUID().slice(0, 8)}`);
  await container.create();
  containers.push(container);
  return container;
};
const put = async (container: ContainerClient, name: string, body: string) =>
  (await container.getBlockBlobClient(name).upload(body, Buffer.byteLength(body))).etag!.replaceAll('"', '');
const sourceOn = (container: ContainerClient, options: Partial<Parameters<typeof azureBlobSource>[0]> = {}) =>
  azureBlobSource({ connectionString: azure.connectionString, container: container.containerName, prefix: 'kb', ...options });

async function listAll(source: { list(): AsyncIterable<SyncItem> }): Promise<Map<string, SyncItem>> {
  const items = new Map<string, SyncItem>();
  for await (const item of source.list()) items.set(item.id, item);
  return items;
}

describe(`azureBlobSource on ${azure.name}`, () => {
  it('lists the blobs under the prefix over several pages, with their ETags as versions and their content through open()', async () => {
    const container = await newContainer();
    const etags: Record<string, string> = {};
    const contents: Record<string, string> = {};
    for (let n = 0; n < 5; n++) {
      const id = n % 2 === 0 ? `note-${n}.md` : `deep/er/note-${n}.txt`;
      contents[id] = `note number ${n}`;
      etags[id] = await put(container, `kb/${id}`, contents[id]);
    }
    // Outside the prefix, or a string prefix of it without the '/', and a folder blob: not listed.
    await put(container, 'kb-old/stale.md', 'old');
    await put(container, 'other/x.md', 'other');
    await put(container, 'kbnote.md', 'no slash');
    await put(container, 'kb/empty/', '');
    const source = sourceOn(container, { pageSize: 2 });
    if (azure.accountName) expect(source.id).toBe(`azure-blob://${azure.accountName}/${container.containerName}/kb/`);
    const items = await listAll(source);
    expect([...items.keys()].sort()).toEqual(Object.keys(contents).sort());
    for (const [id, item] of items) {
      expect(item.version).toBe(etags[id]);
      expect(item.fileName).toBe(id.split('/').at(-1));
      expect(await readItem(item)).toBe(contents[id]);
    }
  });

  it('a blob rewritten gets a new version; the others keep theirs; a deleted one is no longer listed', async () => {
    const container = await newContainer();
    for (const name of ['a.md', 'b.md', 'c.md']) await put(container, `kb/${name}`, `first ${name}`);
    const source = sourceOn(container);
    const before = await listAll(source);
    await put(container, 'kb/b.md', 'second b.md');
    await container.deleteBlob('kb/c.md');
    const after = await listAll(source);
    expect([...after.keys()].sort()).toEqual(['a.md', 'b.md']);
    expect(after.get('a.md')!.version).toBe(before.get('a.md')!.version);
    expect(after.get('b.md')!.version).not.toBe(before.get('b.md')!.version);
    expect(await readItem(after.get('b.md')!)).toBe('second b.md');
    // An item whose blob went away between the listing and the read.
    await expect(before.get('c.md')!.open()).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
  });

  it('a missing container fails the listing with not_configured; a wrong account key with unauthorized', async () => {
    const missing = azureBlobSource({ connectionString: azure.connectionString, container: `kmsync-missing-${randomUUID().slice(0, 8)}` });
    await expect(listAll(missing)).rejects.toSatisfy((e: unknown) => isKmError(e, 'not_configured'));
    const container = await newContainer();
    const bad = azure.connectionString.replace(/AccountKey=[^;]+/, `AccountKey=${Buffer.alloc(64, 7).toString('base64')}`);
    const stranger = azureBlobSource({ connectionString: bad, container: container.containerName });
    await expect(listAll(stranger)).rejects.toSatisfy((e: unknown) => isKmError(e, 'unauthorized'));
  });
});

describe(`memory.sync(azureBlobSource) on ${azure.name}`, () => {
  it('adds N blobs, then syncs one edit, one deletion and one addition as 1 updated, 1 deleted, 1 added; search finds the edit', async () => {
    const container = await newContainer();
    await runSyncScenario(
      {
        put: async (key, body) => void (await put(container, `handbook/${key}`, body)),
        putOutside: async (key, body) => void (await put(container, key, body)),
        remove: async (key) => void (await container.deleteBlob(`handbook/${key}`)),
      },
      sourceOn(container, { prefix: 'handbook/' }),
    );
  });
});
