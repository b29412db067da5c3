import { describe, expect, it } from 'vitest';
import {
  DiskContentStorage,
  DOCUMENT_SCAN_BUDGET,
  HashingEmbeddingGenerator,
  MemoryContentStorage,
  MemoryFilters,
  ReservedTags,
  SimpleVectorDb,
  isKmError,
  listDocumentPage,
  type DataPipeline,
  type IContentStorage,
  MemoryDb,
  type RecordTagsUpdate,
} from '../src/index.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PipelineStatusStore, type MemoryDbDriver } from '../src/connector.js';
import { encodeDocumentCursor } from '../src/documents/document-cursor.js';
import { allRecords, inMemory, inMemoryBuilder, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-listing-');

/** A pipeline state as core saves it, for a document of one uploaded file. */
function state(documentId: string, over: Partial<DataPipeline> = {}): DataPipeline {
  return {
    index: 'docs',
    document_id: documentId,
    execution_id: `x-${documentId}`,
    steps: ['extract', 'partition', 'gen_embeddings', 'save_records'],
    remaining_steps: [],
    completed_steps: ['extract', 'partition', 'gen_embeddings', 'save_records'],
    tags: {},
    creation: '2026-11-29T10:00:00.000Z',
    last_update: '2026-11-29T10:00:01.000Z',
    files: [
      {
        id: `f-${documentId}`,
        name: `${documentId}.txt`,
        size: 10,
        mime_type: 'text/plain',
        artifact_type: 'uploaded_file',
        partition_number: 0,
        section_number: 0,
        tags: {},
        processed_by: [],
        log: [],
        generated_files: {},
      },
    ],
    args: {},
    previous_executions_to_purge: [],
    failed: false,
    ...over,
  };
}

async function storageWith(ids: string[], over: (id: string) => Partial<DataPipeline> = () => ({})) {
  const storage = new MemoryContentStorage();
  const store = new PipelineStatusStore(storage);
  for (const id of ids) await store.write(state(id, over(id)));
  return { storage, store };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `doc-${String(i).padStart(4, '0')}`);

async function allPages(storage: IContentStorage, store: PipelineStatusStore, options: Parameters<typeof listDocumentPage>[3] = {}) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listDocumentPage(storage, store, 'docs', { ...options, ...(cursor ? { cursor } : {}) });
    pages.push(page.documents.map((d) => d.documentId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor && pages.length < 100);
  return pages;
}

/** A content storage that pages ids itself and counts how it is asked. */
class PagingStorage extends MemoryContentStorage {
  fullListings = 0;
  pageCalls: Array<[string | undefined, number]> = [];
  override async listDocuments(index: string): Promise<string[]> {
    this.fullListings++;
    return super.listDocuments(index);
  }
  async listDocumentsAfter(index: string, after: string | undefined, limit: number): Promise<string[]> {
    this.pageCalls.push([after, limit]);
    const all = await super.listDocuments(index);
    return all.filter((id) => after === undefined || id > after).slice(0, limit);
  }
}

describe('listDocumentPage', () => {
  it('pages through every document once, in id order, and says when the last page is reached', async () => {
    const { storage, store } = await storageWith(ids(25).reverse());
    const pages = await allPages(storage, store, { limit: 10 });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(ids(25));
    // Exactly a page's worth: no empty page after it.
    expect(await allPages(storage, store, { limit: 25 })).toEqual([ids(25)]);
  });

  it('reports state, tags, files and sizes from the pipeline state', async () => {
    const { storage, store } = await storageWith(['a', 'b', 'c', 'd'], (id) =>
      id === 'a'
        ? { tags: { team: ['hr'] } }
        : id === 'b'
          ? { remaining_steps: ['save_records'], completed_steps: ['extract', 'partition', 'gen_embeddings'] }
          : id === 'c'
            ? { failed: true, error: 'the model is down' }
            : { steps: ['private_delete_document'], remaining_steps: ['private_delete_document'] },
    );
    const { documents } = await listDocumentPage(storage, store, 'docs');
    expect(documents.map((d) => [d.documentId, d.state, d.error])).toEqual([
      ['a', 'completed', undefined],
      ['b', 'in_progress', undefined],
      ['c', 'failed', 'the model is down'],
      ['d', 'deleting', undefined],
    ]);
    expect(documents[0]).toMatchObject({
      tags: { team: ['hr'] },
      files: [{ name: 'a.txt', size: 10, mimeType: 'text/plain' }],
      size: 10,
      remainingSteps: [],
    });
  });

  it('skips folders without a state and lists an unreadable state as failed, with the reason', async () => {
    const { storage, store } = await storageWith(['a', 'c']);
    await storage.writeFile('docs', 'b', 'upload-in-progress.txt', 'x');
    await storage.writeFile('docs', 'c', '..km.pipeline_status.json', '{ not json');
    const { documents } = await listDocumentPage(storage, store, 'docs');
    expect(documents.map((d) => d.documentId)).toEqual(['a', 'c']);
    expect(documents[1]).toMatchObject({ state: 'failed', error: expect.stringMatching(/cannot be read/) });
  });

  it('filters by tags (OR of ANDs, __document_id too) and by state', async () => {
    const { storage, store } = await storageWith(ids(12), (id) => ({
      tags: { parity: [Number(id.slice(-2)) % 2 === 0 ? 'even' : 'odd'], ...(id.endsWith('3') ? { lucky: [null] } : {}) },
      ...(id.endsWith('7') ? { failed: true, error: 'boom' } : {}),
    }));
    const even = await allPages(storage, store, { limit: 4, filters: [MemoryFilters.byTag('parity', 'even')] });
    expect(even.flat()).toEqual(ids(12).filter((_, i) => i % 2 === 0));
    const either = await listDocumentPage(storage, store, 'docs', {
      filters: [MemoryFilters.byTag('lucky', null), MemoryFilters.byDocument('doc-0000')],
    });
    expect(either.documents.map((d) => d.documentId)).toEqual(['doc-0000', 'doc-0003']);
    const failed = await listDocumentPage(storage, store, 'docs', { states: ['failed'] });
    expect(failed.documents.map((d) => d.documentId)).toEqual(['doc-0007']);
    const notOdd = await listDocumentPage(storage, store, 'docs', {
      filters: [MemoryFilters.notTag('parity', 'odd')],
      states: ['completed'],
    });
    expect(notOdd.documents.map((d) => d.documentId)).toEqual(['doc-0000', 'doc-0002', 'doc-0004', 'doc-0006', 'doc-0008', 'doc-0010']);
  });

  it('reads a bounded number of states per filtered page: a rare match comes on a later page, nothing is skipped', async () => {
    const n = DOCUMENT_SCAN_BUDGET + 500;
    const all = ids(n);
    const rare = all[n - 3]!;
    const { storage, store } = await storageWith(all, (id) => (id === rare ? { tags: { rare: ['yes'] } } : {}));
    const first = await listDocumentPage(storage, store, 'docs', { filters: [MemoryFilters.byTag('rare', 'yes')] });
    expect(first.documents).toEqual([]);
    expect(first.nextCursor).not.toBeNull();
    const second = await listDocumentPage(storage, store, 'docs', {
      filters: [MemoryFilters.byTag('rare', 'yes')],
      cursor: first.nextCursor!,
    });
    expect(second.documents.map((d) => d.documentId)).toEqual([rare]);
    expect(second.nextCursor).toBeNull();
  });

  it("asks a storage that pages for the page's ids only, never for every id", async () => {
    const storage = new PagingStorage();
    const store = new PipelineStatusStore(storage);
    for (const id of ids(30)) await store.write(state(id));
    const pages = await allPages(storage, store, { limit: 10 });
    expect(pages.flat()).toEqual(ids(30));
    expect(storage.fullListings).toBe(0);
    expect(storage.pageCalls[0]).toEqual([undefined, 11]);
    expect(storage.pageCalls[1]).toEqual(['doc-0009', 11]);
  });

  it('refuses a bad limit, cursor or state with invalid_argument', async () => {
    const { storage, store } = await storageWith(['a']);
    const code = (options: Parameters<typeof listDocumentPage>[3]) =>
      listDocumentPage(storage, store, 'docs', options).then(
        () => 'resolved',
        (e: unknown) => (isKmError(e) ? e.code : String(e)),
      );
    for (const limit of [0, -1, 1.5, 1001, Number.NaN]) expect(await code({ limit })).toBe('invalid_argument');
    for (const cursor of ['nope', 'e30', Buffer.from('{"a":"../x"}').toString('base64url'), 'a'.repeat(2000)]) {
      expect(await code({ cursor })).toBe('invalid_argument');
    }
    expect(await code({ states: ['done' as never] })).toBe('invalid_argument');
  });

  it('steps over folders that are not documents (lost+found) instead of failing the listing', async () => {
    const root = await tempDir();
    const storage = new DiskContentStorage({ directory: root, durable: false });
    const store = new PipelineStatusStore(storage);
    for (const id of ['a', 'z']) await store.write(state(id));
    await mkdir(join(root, 'docs', 'lost+found'), { recursive: true });
    expect((await allPages(storage, store, { limit: 1 })).flat()).toEqual(['a', 'z']);
    // A cursor may name such a folder: it round-trips.
    const page = await listDocumentPage(storage, store, 'docs', { cursor: encodeDocumentCursor('lost+found') });
    expect(page.documents.map((d) => d.documentId)).toEqual(['z']);
  });

  it('lists nothing for an index that does not exist', async () => {
    const { storage, store } = await storageWith([]);
    expect(await listDocumentPage(storage, store, 'nothing')).toEqual({ index: 'nothing', documents: [], nextCursor: null });
  });
});

/** A SimpleVectorDb that also replaces tags in place, recording each call. */
class InPlaceTagsDb extends SimpleVectorDb {
  calls: RecordTagsUpdate[][] = [];
  listedWithEmbeddings: boolean[] = [];
  override getList(...args: Parameters<SimpleVectorDb['getList']>) {
    this.listedWithEmbeddings.push(args[1]?.withEmbeddings ?? false);
    return super.getList(...args);
  }
  override readonly updateTags = async (index: string, updates: readonly RecordTagsUpdate[]): Promise<void> => {
    this.calls.push([...updates]);
    const byId = new Map(updates.map((u) => [u.id, u.tags]));
    const records = [];
    for await (const r of super.getList(index, { limit: 0, withEmbeddings: true }))
      if (byId.has(r.id)) records.push({ ...r, tags: byId.get(r.id)! });
    await this.upsertBatch(index, records);
  };
}

describe('updateDocumentTags', () => {
  const TEXT = 'Green tea is made from leaves that are not oxidised. It is popular in Japan and China.';

  it("replaces the document's own tags in its state and records, keeps reserved tags, vectors and payloads", async () => {
    const { memory, db } = inMemory();
    await memory.importText(TEXT, { documentId: 'tea', index: 'docs', tags: { topic: ['food'], year: ['2025'] } });
    const before = await allRecords(db, 'docs');
    const relevanceBefore = (await memory.search('green tea leaves', { index: 'docs' })).results[0]!.partitions[0]!.relevance;

    const summary = await memory.updateDocumentTags('tea', { topic: ['drinks'], reviewed: [null] }, 'docs');
    expect(summary).toMatchObject({ documentId: 'tea', state: 'completed', tags: { topic: ['drinks'], reviewed: [null] } });
    expect((await memory.getDocumentStatus('tea', 'docs'))!.tags).toEqual({ topic: ['drinks'], reviewed: [null] });

    const after = await allRecords(db, 'docs');
    expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
    for (const [i, record] of after.entries()) {
      expect(record.tags.topic).toEqual(['drinks']);
      expect(record.tags.year).toBeUndefined();
      expect(record.tags[ReservedTags.documentId]).toEqual(['tea']);
      expect(record.tags[ReservedTags.fileId]).toEqual(before[i]!.tags[ReservedTags.fileId]);
      expect(record.payload).toEqual(before[i]!.payload);
    }
    const search = await memory.search('green tea leaves', { index: 'docs', filter: MemoryFilters.byTag('topic', 'drinks') });
    expect(search.results[0]!.partitions[0]!.relevance).toBeCloseTo(relevanceBefore, 6);
    expect((await memory.search('green tea leaves', { index: 'docs', filter: MemoryFilters.byTag('topic', 'food') })).results).toEqual([]);
  });

  it('uses the memory DB’s updateTags when it has one, reading records without their vectors', async () => {
    const db = new InPlaceTagsDb();
    const memory = inMemoryBuilder({ memoryDb: db }).build();
    await memory.importText(TEXT, { documentId: 'tea', tags: { topic: ['food'] } });
    db.listedWithEmbeddings = [];
    await memory.updateDocumentTags('tea', { topic: ['drinks'] });
    expect(db.listedWithEmbeddings).toEqual([false]);
    expect(db.calls).toHaveLength(1);
    for (const update of db.calls[0]!) {
      expect(update.tags.topic).toEqual(['drinks']);
      expect(update.tags[ReservedTags.documentId]).toEqual(['tea']);
    }
    expect((await memory.search('green tea', { filter: MemoryFilters.byTag('topic', 'drinks') })).results).toHaveLength(1);
  });

  it('refuses reserved tags, unknown documents and documents being ingested or deleted', async () => {
    const { memory, storage } = inMemory();
    await memory.importText(TEXT, { documentId: 'tea', tags: { topic: ['food'] } });
    const code = (call: Promise<unknown>) =>
      call.then(
        () => 'resolved',
        (e: unknown) => (isKmError(e) ? e.code : String(e)),
      );
    expect(await code(memory.updateDocumentTags('tea', { __document_id: ['x'] }))).toBe('invalid_tag');
    expect(await code(memory.updateDocumentTags('tea', 'topic:x' as never))).toBe('invalid_tag');
    expect(await code(memory.updateDocumentTags('missing', {}))).toBe('document_not_found');
    expect(await code(memory.updateDocumentTags('../x', {}))).toBe('invalid_document_id');
    const store = new PipelineStatusStore(storage);
    await store.write(state('busy', { index: 'default', remaining_steps: ['save_records'] }));
    expect(await code(memory.updateDocumentTags('busy', { a: ['b'] }))).toBe('document_busy');
    await store.write(
      state('going', { index: 'default', steps: ['private_delete_document'], remaining_steps: ['private_delete_document'] }),
    );
    expect(await code(memory.updateDocumentTags('going', { a: ['b'] }))).toBe('document_busy');
    expect((await memory.getDocumentStatus('tea'))!.tags).toEqual({ topic: ['food'] });
  });

  it('is refused at once while this process runs a step of the document, and applies once it is done', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inStep = new Promise<void>((resolve) => {
      entered = resolve;
    });
    class GatedEmbeddings extends HashingEmbeddingGenerator {
      override async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
        entered();
        await gate;
        return super.generateEmbeddings(texts, signal);
      }
    }
    const db = new SimpleVectorDb();
    const memory = inMemoryBuilder({ memoryDb: db, embeddingGenerator: new GatedEmbeddings() }).build();
    const importing = memory.importText(TEXT, { documentId: 'tea', tags: { topic: ['food'] } });
    await inStep;
    // Waiting for the lock would hang here: the step goes on only once the gate opens below.
    const refused = await memory.updateDocumentTags('tea', { topic: ['drinks'] }).then(
      () => 'resolved',
      (e: unknown) => (isKmError(e) ? e.code : String(e)),
    );
    expect(refused).toBe('document_busy');
    release();
    await importing;
    expect(await memory.updateDocumentTags('tea', { topic: ['drinks'] })).toMatchObject({
      state: 'completed',
      tags: { topic: ['drinks'] },
    });
    const records = await allRecords(db);
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(record.tags.topic).toEqual(['drinks']);
  }, 10_000);

  it('a failed document can be retagged: its state carries the new tags for the re-run', async () => {
    const { memory, storage } = inMemory();
    const store = new PipelineStatusStore(storage);
    await store.write(
      state('broken', { index: 'default', failed: true, error: 'model down', remaining_steps: ['gen_embeddings', 'save_records'] }),
    );
    const summary = await memory.updateDocumentTags('broken', { team: ['a'] });
    expect(summary).toMatchObject({ state: 'failed', tags: { team: ['a'] } });
  });
});

describe('MemoryDb.updateTags', () => {
  it('is offered only when the driver has it', () => {
    expect(new SimpleVectorDb().updateTags).toBeUndefined();
    expect(typeof new InPlaceTagsDb().updateTags).toBe('function');
  });

  it('hands the driver checked updates: normalised index, last update of an id wins, nothing for a missing index', async () => {
    const driver = new SimpleVectorDb().driver as MemoryDbDriver;
    const calls: Array<[string, RecordTagsUpdate[]]> = [];
    driver.updateTags = async (index, updates) => void calls.push([index, updates]);
    const db = new MemoryDb(driver);
    await db.updateTags!('Missing Index', [{ id: 'a', tags: {} }]);
    expect(calls).toEqual([]);
    await db.createIndex('My Notes', 2);
    await db.updateTags!('My Notes', [
      { id: 'a', tags: { x: ['1'] } },
      { id: 'b', tags: { __document_id: ['d'] } },
      { id: 'a', tags: { x: ['2'] } },
    ]);
    expect(calls).toEqual([
      [
        'my-notes',
        [
          { id: 'b', tags: { __document_id: ['d'] } },
          { id: 'a', tags: { x: ['2'] } },
        ],
      ],
    ]);
    const code = (updates: unknown) =>
      db.updateTags!('My Notes', updates as RecordTagsUpdate[]).then(
        () => 'resolved',
        (e: unknown) => (isKmError(e) ? e.code : String(e)),
      );
    expect(await code([{ id: '', tags: {} }])).toBe('invalid_argument');
    expect(await code('nope')).toBe('invalid_argument');
    expect(await code([{ id: 'a', tags: { '': ['x'] } }])).toBe('invalid_tag');
    expect(calls).toHaveLength(1);
  });
});
