import { describe, expect, it } from 'vitest';
import {
  MemoryFilters,
  ReservedTags,
  syncDocumentId,
  type MemoryServerless,
  type SyncItem,
  type SyncOptions,
  type SyncSource,
} from '../src/index.js';
import { allRecords, cleanupAfterTests, inMemory, inMemoryBuilder, rejectedCode } from './helpers.js';

const { services } = cleanupAfterTests();

interface FakeItem {
  id: string;
  text: string;
  version?: string;
  /** open() rejects with this message. */
  openError?: string;
  fileName?: string;
}

/** A source listing `items` (then throwing `listError`, when given). */
function source(items: FakeItem[], extra: { id?: string; listError?: string; onOpen?: (id: string) => void } = {}): SyncSource {
  return {
    id: extra.id ?? 'fake:source',
    kind: 'fake',
    async *list(): AsyncIterable<SyncItem> {
      for (const item of items) {
        yield {
          id: item.id,
          version: item.version ?? `v:${item.text}`,
          fileName: item.fileName ?? `${item.id.replace(/\W/g, '_')}.txt`,
          tags: { origin: ['fake'] },
          async open() {
            extra.onOpen?.(item.id);
            if (item.openError) throw new Error(item.openError);
            return new TextEncoder().encode(item.text);
          },
        };
      }
      if (extra.listError) throw new Error(extra.listError);
    },
  };
}

const three: FakeItem[] = [
  { id: 'a', text: 'alpha apples are crisp' },
  { id: 'b', text: 'bravo bananas are yellow' },
  { id: 'c', text: 'charlie cherries are red' },
];

async function documentIds(memory: Pick<MemoryServerless, 'listDocuments'>): Promise<string[]> {
  return (await memory.listDocuments()).documents.map((d) => d.documentId).sort();
}

describe('syncSource through memory.sync', () => {
  it('a listing that throws part way deletes nothing and reports complete: false with the error', async () => {
    const { memory } = inMemory();
    await memory.sync(source(three));
    const report = await memory.sync(source(three.slice(0, 1), { listError: 'network down' }));
    expect(report).toMatchObject({ complete: false, listed: 1, unchanged: 1, deleted: 0, failed: 0 });
    expect(report.failures).toEqual([{ itemId: '', error: expect.stringContaining('network down') }]);
    expect(await documentIds(memory)).toHaveLength(3);
  });

  it('a failing item is counted and reported; the others are ingested; the next run retries it', async () => {
    const { memory } = inMemory();
    const items = [...three, { id: 'bad', text: 'never read', openError: 'permission denied' }];
    const report = await memory.sync(source(items));
    expect(report).toMatchObject({ listed: 4, added: 3, failed: 1, complete: true });
    expect(report.failures).toEqual([
      { itemId: 'bad', documentId: syncDocumentId('fake:source', 'bad'), error: expect.stringContaining('permission denied') },
    ]);
    const opened: string[] = [];
    items[3] = { id: 'bad', text: 'now readable' };
    const again = await memory.sync(source(items, { onOpen: (id) => opened.push(id) }));
    expect(again).toMatchObject({ added: 1, unchanged: 3, failed: 0 });
    expect(opened).toEqual(['bad']);
  });

  it('an item whose pipeline fails is counted failed, and re-imported (updated) by the next run', async () => {
    const { memory } = inMemory();
    // No decoder of PDF in core: the document fails.
    const items: FakeItem[] = [...three, { id: 'doc', text: '%PDF-1.4 not readable here', fileName: 'doc.pdf', version: 'v1' }];
    const report = await memory.sync(source(items));
    expect(report).toMatchObject({ added: 3, failed: 1 });
    expect(report.failures[0]!.itemId).toBe('doc');
    items[3] = { id: 'doc', text: 'readable now', fileName: 'doc.txt', version: 'v1' };
    expect(await memory.sync(source(items))).toMatchObject({ updated: 1, unchanged: 3, failed: 0 });
  });

  it('an item listed twice fails the second time; the first is ingested', async () => {
    const { memory } = inMemory();
    const report = await memory.sync(source([...three, { id: 'a', text: 'another alpha' }]));
    expect(report).toMatchObject({ listed: 4, added: 3, failed: 1 });
    expect(report.failures[0]).toMatchObject({ itemId: 'a', error: expect.stringContaining('listed twice') });
  });

  it('deletes only its own source documents, and not with deleteMissing: false', async () => {
    const { memory } = inMemory();
    await memory.importText('a document of my own', { documentId: 'mine' });
    await memory.sync(source(three, { id: 'other:source' }));
    await memory.sync(source(three));
    expect(await memory.sync(source([three[0]!]), { deleteMissing: false })).toMatchObject({ deleted: 0, unchanged: 1 });
    expect(await documentIds(memory)).toHaveLength(7);
    expect(await memory.sync(source([three[0]!]))).toMatchObject({ deleted: 2, unchanged: 1 });
    expect(await documentIds(memory)).toHaveLength(5);
    expect(await documentIds(memory)).toContain('mine');
  });

  it('gives each document the sync tags, the item tags and the options tags, in its state and records', async () => {
    const { memory, db } = inMemory();
    await memory.sync(source([three[0]!]), { tags: { team: ['docs'] } });
    const id = syncDocumentId('fake:source', 'a');
    const [doc] = (await memory.listDocuments()).documents;
    expect(doc!.tags).toEqual({
      team: ['docs'],
      origin: ['fake'],
      [ReservedTags.syncSource]: ['fake:source'],
      [ReservedTags.syncItem]: ['a'],
      [ReservedTags.syncVersion]: ['v:alpha apples are crisp'],
    });
    const records = await allRecords(db);
    expect(records.length).toBeGreaterThan(0);
    for (const r of records)
      expect(r.tags).toMatchObject({ [ReservedTags.documentId]: [id], [ReservedTags.syncItem]: ['a'], team: ['docs'] });
    const found = await memory.search('', { filter: MemoryFilters.byTag(ReservedTags.syncSource, 'fake:source') });
    expect(found.results.map((c) => c.documentId)).toEqual([id]);
  });

  it('an abort starts no more imports, deletes nothing and reports complete: false', async () => {
    const { memory } = inMemory();
    await memory.sync(source(three));
    const controller = new AbortController();
    const items = Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, text: `number ${i} text` }));
    const report = await memory.sync(
      source(items, {
        onOpen: (id) => {
          if (id === 'n2') controller.abort();
        },
      }),
      { concurrency: 1, signal: controller.signal },
    );
    expect(report.complete).toBe(false);
    expect(report.deleted).toBe(0);
    expect(report.added).toBeLessThan(20);
    expect(await documentIds(memory)).toEqual(expect.arrayContaining(three.map((t) => syncDocumentId('fake:source', t.id))));
  });

  it('refuses bad options and sources with typed errors, before anything is synced', async () => {
    const { memory } = inMemory();
    const bad: [SyncOptions, string][] = [
      [{ concurrency: 0 }, 'invalid_argument'],
      [{ concurrency: 65 }, 'invalid_argument'],
      [{ concurrency: 1.5 }, 'invalid_argument'],
      [{ tags: { __sync_source: ['x'] } }, 'invalid_tag'],
      [{ tags: { 'a:b': ['x'] } }, 'invalid_tag'],
      [{ index: 'bad index*' }, 'invalid_index_name'],
      [{ waitForLeaseMs: -1 }, 'invalid_argument'],
      [{ deleteMissing: 'yes' as unknown as boolean }, 'invalid_argument'],
      [{ steps: ['private_delete_document'] }, 'invalid_argument'],
      [{ steps: ['no_such_step'] }, 'invalid_argument'],
      [{ args: { nope: 1 } }, 'invalid_argument'],
    ];
    for (const [options, expected] of bad)
      expect(await rejectedCode(memory.sync(source(three), options)), JSON.stringify(options)).toBe(expected);
    expect(await rejectedCode(memory.sync({ id: '', kind: 'x', list: source(three).list }))).toBe('invalid_argument');
    expect(await rejectedCode(memory.sync({ id: 'x', kind: 'x' } as unknown as SyncSource))).toBe('invalid_argument');
    expect(await documentIds(memory)).toEqual([]);
  });

  it('over queues (MemoryService): waits for each document to be ready, so the counts are true', async () => {
    const memory = inMemoryBuilder().buildService();
    services.push(memory);
    await memory.start();
    const report = await memory.sync(source([...three, { id: 'doc', text: '%PDF-1.4 not readable here', fileName: 'doc.pdf' }]));
    expect(report).toMatchObject({ added: 3, failed: 1, complete: true });
    for (const t of three) expect(await memory.isDocumentReady(syncDocumentId('fake:source', t.id))).toBe(true);
    expect(await memory.sync(source(three))).toMatchObject({ unchanged: 3, deleted: 1 });
  });

  it('over queues (MemoryService): a document reported deleted is gone when the sync returns (records, files, state)', async () => {
    const memory = inMemoryBuilder().buildService();
    services.push(memory);
    await memory.start();
    expect(await memory.sync(source(three))).toMatchObject({ added: 3, complete: true });
    const gone = syncDocumentId('fake:source', 'b');
    // Before, the deletion was only queued: a search right after the sync still found the document.
    expect(await memory.sync(source(three.filter((t) => t.id !== 'b')))).toMatchObject({ unchanged: 2, deleted: 1 });
    expect(await memory.getDocumentStatus(gone)).toBeNull();
    for (const db of memory.orchestrator.context.memoryDbs)
      expect((await allRecords(db)).filter((r) => r.tags[ReservedTags.documentId]?.[0] === gone)).toEqual([]);
    expect(await documentIds(memory)).toEqual([syncDocumentId('fake:source', 'a'), syncDocumentId('fake:source', 'c')].sort());
  });
});
