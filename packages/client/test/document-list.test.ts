import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryFilters, isKmError, type DataPipeline, type IPipelineStepHandler, type StepOutcome } from '@km/core';
import { startTestService, type TestService } from '@km/service/testing';
import { MemoryWebClient, MemoryWebClientError } from '../src/index.js';

const KEY = 'client-list-key-'.padEnd(40, 'x');
const INDEX = 'shelf';

/** A pipeline step that holds every document until `open()` is called: the document stays in progress meanwhile. */
class GateStep implements IPipelineStepHandler {
  readonly stepName = 'gate';
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  open(): void {
    this.release();
  }

  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    await this.opened;
    return { result: 'success', pipeline };
  }
}

const gate = new GateStep();
let service: TestService;
let memory: MemoryWebClient;

beforeAll(async () => {
  service = await startTestService({ logLevel: 'warn', auth: { enabled: true, keys: [KEY] } }, (builder) => builder.withHandler(gate));
  memory = new MemoryWebClient(service.url, { apiKey: KEY });
  const books: Array<[string, string, Record<string, string[]>]> = [
    ['book-a', 'Astronomy for beginners: the Moon, Mars and Jupiter.', { topic: ['space'], shelf: ['top'] }],
    ['book-b', 'Baking bread at home: flour, water, salt and time.', { topic: ['food'] }],
    ['book-c', 'Comets and asteroids of the solar system.', { topic: ['space'] }],
    ['book-d', 'Dumplings of the world, steamed and fried.', { topic: ['food'], shelf: ['top'] }],
  ];
  for (const [documentId, text, tags] of books) await memory.importText(text, { documentId, index: INDEX, tags });
  for (const [documentId] of books) await memory.waitForDocument(documentId, { index: INDEX, pollIntervalMs: 20 });
});
afterAll(async () => {
  gate.open();
  await service.dispose();
});

describe('MemoryWebClient document listing against a real km service', () => {
  it('pages through an index with limit and cursor, in id order', async () => {
    const first = await memory.listDocuments({ index: INDEX, limit: 3 });
    expect(first.index).toBe(INDEX);
    expect(first.documents.map((d) => d.documentId)).toEqual(['book-a', 'book-b', 'book-c']);
    expect(first.documents[0]).toMatchObject({
      state: 'completed',
      tags: { topic: ['space'], shelf: ['top'] },
      files: [{ name: 'content.txt', mimeType: 'text/plain' }],
    });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await memory.listDocuments({ index: INDEX, limit: 3, cursor: first.nextCursor! });
    expect(second.documents.map((d) => d.documentId)).toEqual(['book-d']);
    expect(second.nextCursor).toBeNull();
  });

  it('documents() follows the cursors to the last page', async () => {
    const ids: string[] = [];
    for await (const document of memory.documents({ index: INDEX, limit: 1 })) ids.push(document.documentId);
    expect(ids).toEqual(['book-a', 'book-b', 'book-c', 'book-d']);
  });

  it('filters by tags (MemoryFilter or KM filter JSON, OR across filters) and by state', async () => {
    const ids = async (options: Parameters<MemoryWebClient['listDocuments']>[0]) =>
      (await memory.listDocuments({ index: INDEX, ...options })).documents.map((d) => d.documentId);
    expect(await ids({ filters: [MemoryFilters.byTag('topic', 'space')] })).toEqual(['book-a', 'book-c']);
    expect(await ids({ filters: [MemoryFilters.byTag('topic', 'food').byTag('shelf', 'top')] })).toEqual(['book-d']);
    expect(await ids({ filters: [{ topic: ['food'] }, { shelf: ['top'] }] })).toEqual(['book-a', 'book-b', 'book-d']);
    expect(await ids({ filters: [{ topic: ['space'], '!shelf': ['top'] }] })).toEqual(['book-c']);
    expect(await ids({ states: ['completed'] })).toHaveLength(4);
    expect(await ids({ states: ['failed', 'in_progress'] })).toEqual([]);
  });

  it("lists a document's uploaded and generated files", async () => {
    const files = await memory.getDocumentFiles('book-b', INDEX);
    expect(files).toMatchObject({ index: INDEX, documentId: 'book-b' });
    expect(files.files[0]).toMatchObject({ name: 'content.txt', artifactType: 'uploaded_file' });
    expect(files.files.some((f) => f.artifactType === 'text_partition' && f.parent === 'content.txt')).toBe(true);
  });

  it('replaces tags: the listing and search both see the new tag, and no longer the old one', async () => {
    const updated = await memory.updateDocumentTags('book-b', { topic: ['baking'], reviewed: ['2026'] }, INDEX);
    expect(updated).toMatchObject({ documentId: 'book-b', state: 'completed', tags: { topic: ['baking'], reviewed: ['2026'] } });
    const listed = await memory.listDocuments({ index: INDEX, filters: [MemoryFilters.byTag('topic', 'baking')] });
    expect(listed.documents.map((d) => d.documentId)).toEqual(['book-b']);
    const found = await memory.search('bread flour water salt', { index: INDEX, filter: MemoryFilters.byTag('reviewed', '2026') });
    expect(found.results.map((r) => r.documentId)).toEqual(['book-b']);
    const old = await memory.search('bread flour water salt', { index: INDEX, filter: MemoryFilters.byTag('topic', 'food') });
    expect(old.results.map((r) => r.documentId)).not.toContain('book-b');
  });

  it('maps 400, 404 and 409 answers to typed errors', async () => {
    const badLimit = await memory.listDocuments({ index: INDEX, limit: 0 }).catch((e: unknown) => e);
    expect(badLimit).toBeInstanceOf(MemoryWebClientError);
    expect(badLimit).toMatchObject({ status: 400, code: 'invalid_argument', message: expect.stringMatching(/limit/) });
    const badCursor = await memory.listDocuments({ index: INDEX, cursor: 'not-a-cursor' }).catch((e: unknown) => e);
    expect(badCursor).toMatchObject({ status: 400, code: 'invalid_argument', message: expect.stringMatching(/cursor/) });
    const reserved = await memory.updateDocumentTags('book-a', { __document_id: ['x'] }, INDEX).catch((e: unknown) => e);
    expect(reserved).toMatchObject({ status: 400, code: 'invalid_tag' });
    const badFilter = await memory.listDocuments({ index: INDEX, filters: [{ __nope: ['x'] }] }).catch((e: unknown) => e);
    expect(isKmError(badFilter, 'invalid_filter')).toBe(true); // refused before sending

    const noFiles = await memory.getDocumentFiles('nobody', INDEX).catch((e: unknown) => e);
    expect(noFiles).toMatchObject({ status: 404, code: 'document_not_found' });
    const noTags = await memory.updateDocumentTags('nobody', { topic: ['x'] }, INDEX).catch((e: unknown) => e);
    expect(noTags).toMatchObject({ status: 404, code: 'document_not_found' });

    // Held by the gate step: still being ingested.
    await memory.importText('Held at the gate.', { documentId: 'held', index: INDEX, steps: ['extract', 'gate', 'partition'] });
    const busy = await memory.updateDocumentTags('held', { topic: ['x'] }, INDEX).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(MemoryWebClientError);
    expect(busy).toMatchObject({ status: 409, code: 'document_busy', message: expect.stringMatching(/being ingested/) });
    expect((await memory.listDocuments({ index: INDEX, states: ['in_progress'] })).documents.map((d) => d.documentId)).toEqual(['held']);
    gate.open();
    await memory.waitForDocument('held', { index: INDEX, pollIntervalMs: 20 });
    expect(await memory.updateDocumentTags('held', { topic: ['x'] }, INDEX)).toMatchObject({ state: 'completed', tags: { topic: ['x'] } });
  });

  it('needs the access key like every other route', async () => {
    const refused = await new MemoryWebClient(service.url, { apiKey: 'wrong' }).listDocuments({ index: INDEX }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: 'unauthorized' });
  });
});
