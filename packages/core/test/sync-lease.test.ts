import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  DiskContentStorage,
  MemoryContentStorage,
  SYNC_LEASE_FOLDER,
  acquireSyncLease,
  listDocumentPage,
  syncLeaseFileName,
  type IContentStorage,
  type SyncItem,
  type SyncSource,
} from '../src/index.js';
import { PipelineStatusStore } from '../src/connector.js';
import { inMemory, rejectedCode, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-sync-lease-');

/** A pid that ran on this host and is gone. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid!;
}

/** Storages to run each lease test on: with conditional writes (memory) and without (disk). */
const storages: [string, () => Promise<IContentStorage>][] = [
  ['with conditional writes', async () => new MemoryContentStorage()],
  ['without conditional writes (disk)', async () => new DiskContentStorage({ directory: await tempDir() })],
];

describe.each(storages)('sync lease, storage %s', (_name, makeStorage) => {
  it('a second lease of the same (index, source) is sync_busy; another source or index is free; release frees it', async () => {
    const storage = await makeStorage();
    const lease = await acquireSyncLease(storage, 'docs', 'folder:/a');
    expect(await rejectedCode(acquireSyncLease(storage, 'docs', 'folder:/a'))).toBe('sync_busy');
    const other = await acquireSyncLease(storage, 'docs', 'folder:/b');
    const otherIndex = await acquireSyncLease(storage, 'notes', 'folder:/a');
    await lease.release();
    const again = await acquireSyncLease(storage, 'docs', 'folder:/a');
    await Promise.all([again.release(), other.release(), otherIndex.release()]);
    expect(await storage.fileExists('docs', SYNC_LEASE_FOLDER, syncLeaseFileName('folder:/a'))).toBe(false);
  });

  it('waitForLease: a busy lease is waited for until it is released', async () => {
    const storage = await makeStorage();
    const lease = await acquireSyncLease(storage, 'docs', 'src');
    setTimeout(() => void lease.release(), 300);
    const second = await acquireSyncLease(storage, 'docs', 'src', { waitMs: 10_000 });
    await second.release();
  });

  it('a lease of a dead process of this host, or an expired one, is taken over at once', async () => {
    const storage = await makeStorage();
    await storage.createIndexDirectory('docs');
    const file = syncLeaseFileName('src');
    const future = new Date(Date.now() + 60_000).toISOString();
    await storage.writeFile(
      'docs',
      SYNC_LEASE_FOLDER,
      file,
      JSON.stringify({ owner: 'x', host: hostname(), pid: deadPid(), source: 'src', expiresAt: future }),
    );
    const taken = await acquireSyncLease(storage, 'docs', 'src');
    expect(taken.record.pid).toBe(process.pid);
    await taken.release();
    const past = new Date(Date.now() - 1000).toISOString();
    await storage.writeFile(
      'docs',
      SYNC_LEASE_FOLDER,
      file,
      JSON.stringify({ owner: 'y', host: 'elsewhere', pid: 1, source: 'src', expiresAt: past }),
    );
    const taken2 = await acquireSyncLease(storage, 'docs', 'src');
    await taken2.release();
    // A live lease of another host is not taken.
    await storage.writeFile(
      'docs',
      SYNC_LEASE_FOLDER,
      file,
      JSON.stringify({ owner: 'z', host: 'elsewhere', pid: 1, source: 'src', expiresAt: future }),
    );
    expect(await rejectedCode(acquireSyncLease(storage, 'docs', 'src'))).toBe('sync_busy');
  });

  it('is renewed while held', async () => {
    const storage = await makeStorage();
    const lease = await acquireSyncLease(storage, 'docs', 'src', { ttlMs: 400, renewMs: 100 });
    await new Promise((r) => setTimeout(r, 900));
    // Past its first expiry, the renewed lease still keeps others out.
    expect(await rejectedCode(acquireSyncLease(storage, 'docs', 'src'))).toBe('sync_busy');
    await lease.release();
  });

  it('the lease folder is not listed as a document', async () => {
    const storage = await makeStorage();
    const lease = await acquireSyncLease(storage, 'docs', 'src');
    const page = await listDocumentPage(storage, new PipelineStatusStore(storage), 'docs');
    expect(page.documents).toEqual([]);
    await lease.release();
  });
});

/** A source of `n` items whose listing waits for `gate` before its first item. */
function gatedSource(n: number, gate: Promise<void>): SyncSource {
  return {
    id: 'gated',
    kind: 'test',
    async *list(): AsyncIterable<SyncItem> {
      await gate;
      for (let i = 0; i < n; i++) {
        yield { id: `item-${i}`, version: 'v1', fileName: `item-${i}.txt`, open: async () => new TextEncoder().encode(`item number ${i}`) };
      }
    },
  };
}

describe('memory.sync and its lease', () => {
  it('two syncs of the same source at once: one runs, the other is sync_busy; the index is whole', async () => {
    const { memory } = inMemory();
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const first = memory.sync(gatedSource(5, gate));
    await new Promise((r) => setTimeout(r, 50));
    expect(await rejectedCode(memory.sync(gatedSource(5, Promise.resolve())))).toBe('sync_busy');
    open();
    expect(await first).toMatchObject({ added: 5, complete: true });
    // Released at the end: the next one runs.
    expect(await memory.sync(gatedSource(5, Promise.resolve()))).toMatchObject({ unchanged: 5 });
    const listed = await memory.listDocuments();
    expect(listed.documents).toHaveLength(5);
  });

  it('with waitForLeaseMs, the second sync waits for the first and then finds nothing to do', async () => {
    const { memory } = inMemory();
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const first = memory.sync(gatedSource(3, gate));
    await new Promise((r) => setTimeout(r, 50));
    const second = memory.sync(gatedSource(3, Promise.resolve()), { waitForLeaseMs: 30_000 });
    setTimeout(open, 200);
    expect(await first).toMatchObject({ added: 3 });
    expect(await second).toMatchObject({ unchanged: 3, added: 0 });
  });
});
