import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Document,
  EXTRACTIVE_PREAMBLE,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  MemoryFilters,
  NOT_FOUND_ANSWER,
  ReservedTags,
  SimpleTextDb,
  SimpleVectorDb,
  WebPageFetcher,
  isKmError,
  silentLogger,
  type DataPipeline,
  type IPipelineStepHandler,
  type MemoryServerless,
  type StepOutcome,
} from '../src/index.js';
import { SaveRecordsHandler, markProcessed, pendingFiles, type PipelineContext } from '../src/connector.js';
import { ScriptedTextGenerator, allRecords, collect, inMemory, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-mem-');

class CountingEmbeddingGenerator extends HashingEmbeddingGenerator {
  calls = 0;
  override async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    this.calls += texts.length;
    return super.generateEmbeddings(texts, signal);
  }
}

const MOON = `# The Moon

The Moon is Earth's only natural satellite. It orbits at an average distance of 384,400 km.

## Surface

The lunar surface is covered in regolith and craters left by impacts.`;
const CARBON = 'Carbon is a chemical element with symbol C and atomic number 6. Diamond and graphite are forms of carbon.';
const HTML = `<html><head><title>Volcanoes</title></head><body><h1>Volcanoes</h1>
<p>A volcano is a rupture in the crust where lava, ash and gases escape.</p><ul><li>Etna erupts often</li></ul></body></html>`;
const JSON_DOC = JSON.stringify({ product: 'Teapot', material: 'porcelain', capacity_ml: 750, colors: ['white', 'blue'] });

async function importCorpus(memory: MemoryServerless) {
  await memory.importDocument({ name: 'moon.md', data: MOON }, { documentId: 'moon', tags: { topic: ['space'], user: ['alice'] } });
  await memory.importText(CARBON, { documentId: 'carbon', tags: { topic: ['chemistry'], user: ['bob'] } });
  await memory.importDocument(
    { name: 'volcano.html', data: HTML },
    { documentId: 'volcano', tags: { topic: ['geology'], user: ['alice'] } },
  );
  await memory.importDocument({ name: 'teapot.json', data: JSON_DOC }, { documentId: 'teapot', tags: { topic: ['shop'] } });
}

describe('MemoryServerless end to end', () => {
  it('imports text, markdown, HTML and JSON; records carry reserved and user tags', async () => {
    const { memory, db } = inMemory();
    await importCorpus(memory);
    for (const id of ['moon', 'carbon', 'volcano', 'teapot']) expect(await memory.isDocumentReady(id)).toBe(true);
    const records = await allRecords(db);
    const docs = new Set(records.map((r) => r.tags[ReservedTags.documentId]![0]));
    expect(docs).toEqual(new Set(['moon', 'carbon', 'volcano', 'teapot']));
    const volcano = records.find((r) => r.tags[ReservedTags.documentId]![0] === 'volcano')!;
    expect(volcano.payload.text).toContain('# Volcanoes');
    expect(volcano.payload.text).toContain('- Etna erupts often');
    expect(volcano.tags[ReservedTags.fileType]).toEqual(['text/html']);
    expect(volcano.id).toBe(`d=volcano//p=${volcano.tags[ReservedTags.filePart]![0]}`);
    const teapot = records.find((r) => r.tags[ReservedTags.documentId]![0] === 'teapot')!;
    expect(teapot.payload.text).toContain('"material": "porcelain"');
  });

  it('search returns citations grouped by file, and filters keep only matching sources', async () => {
    const { memory } = inMemory();
    await importCorpus(memory);
    const all = await memory.search('moon craters regolith');
    expect(all.noResult).toBe(false);
    expect(all.results[0]!.documentId).toBe('moon');
    expect(all.results[0]!.sourceName).toBe('moon.md');
    expect(all.results[0]!.link).toBe(`default/moon/${all.results[0]!.fileId}`);
    const alice = await memory.search('moon craters regolith', { filter: MemoryFilters.byTag('user', 'alice'), minRelevance: -1 });
    expect(new Set(alice.results.map((c) => c.documentId))).toEqual(new Set(['moon', 'volcano']));
    const notAlice = await memory.search('element', { filters: [MemoryFilters.notTag('user', 'alice')], minRelevance: -1 });
    expect(notAlice.results.map((c) => c.documentId).sort()).toEqual(['carbon', 'teapot']);
    const orFilters = await memory.search('anything at all', {
      filters: [MemoryFilters.byTag('topic', 'chemistry'), MemoryFilters.byDocument('teapot')],
      minRelevance: -1,
    });
    expect(orFilters.results.map((c) => c.documentId).sort()).toEqual(['carbon', 'teapot']);
    const none = await memory.search('moon', { filter: MemoryFilters.byTag('user', 'nobody') });
    expect(none).toEqual({ query: 'moon', noResult: true, results: [] });
  });

  it('an empty query lists the records matching the filters (Kernel Memory behaviour)', async () => {
    const { memory } = inMemory();
    await importCorpus(memory);
    const listed = await memory.search('', { filter: MemoryFilters.byTag('topic', 'chemistry') });
    expect(listed.results.map((c) => c.documentId)).toEqual(['carbon']);
  });

  it('ask without a language model quotes the most relevant sentences and cites them', async () => {
    const { memory } = inMemory();
    await importCorpus(memory);
    const answer = await memory.ask('What covers the lunar surface of the Moon?');
    expect(answer.noResult).toBe(false);
    expect(answer.text.startsWith(EXTRACTIVE_PREAMBLE)).toBe(true);
    expect(answer.text).toContain('regolith');
    expect(answer.relevantSources[0]!.documentId).toBe('moon');
  });

  it('ask with a text generator puts the facts in the prompt and reports token usage', async () => {
    const generator = new ScriptedTextGenerator(() => 'The surface is covered in regolith.');
    const { memory } = inMemory((b) => b.withTextGenerator(generator));
    await importCorpus(memory);
    const answer = await memory.ask('What covers the surface of the Moon?', { filter: MemoryFilters.byTag('topic', 'space') });
    expect(answer.text).toBe('The surface is covered in regolith.');
    expect(answer.noResult).toBe(false);
    expect(generator.prompts[0]).toContain('regolith and craters');
    expect(generator.prompts[0]).not.toContain('Carbon');
    expect(generator.prompts[0]).toContain(NOT_FOUND_ANSWER);
    expect(answer.relevantSources.map((s) => s.documentId)).toEqual(['moon']);
    expect(answer.tokenUsage[0]).toMatchObject({ serviceTokensIn: 11, serviceTokensOut: 5, modelName: 'scripted' });
    expect(answer.tokenUsage[0]!.tokenizerTokensIn).toBeGreaterThan(20);
  });

  it('INFO NOT FOUND from the model, or no matching memory, gives noResult', async () => {
    const generator = new ScriptedTextGenerator(() => NOT_FOUND_ANSWER);
    const { memory } = inMemory((b) => b.withTextGenerator(generator));
    await importCorpus(memory);
    const unknown = await memory.ask('Who won the 1998 world cup?');
    expect(unknown.noResult).toBe(true);
    expect(unknown.noResultReason).toBeTruthy();
    const empty = await memory.ask('Anything?', { filter: MemoryFilters.byTag('user', 'nobody') });
    expect(empty).toMatchObject({ noResult: true, text: NOT_FOUND_ANSWER, relevantSources: [] });
  });

  it('askStreaming yields reset, append chunks and last; the chunks add up to the answer', async () => {
    const generator = new ScriptedTextGenerator(() => 'Carbon has atomic number six, as the facts say.');
    const { memory } = inMemory((b) => b.withTextGenerator(generator));
    await importCorpus(memory);
    const chunks = await collect(memory.askStreaming('What is the atomic number of carbon?'));
    expect(chunks[0]!.streamState).toBe('reset');
    expect(chunks[0]!.relevantSources.length).toBeGreaterThan(0);
    expect(chunks.at(-1)!.streamState).toBe('last');
    expect(chunks.filter((c) => c.streamState === 'append').length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.text).join('')).toBe('Carbon has atomic number six, as the facts say.');
  });

  it('deleting a document leaves zero records and zero files', async () => {
    const { memory, db, storage } = inMemory();
    await importCorpus(memory);
    await memory.deleteDocument('moon');
    const left = await allRecords(db);
    expect(left.some((r) => r.tags[ReservedTags.documentId]![0] === 'moon')).toBe(false);
    expect(left.length).toBeGreaterThan(0);
    expect(await storage.listFiles('default', 'moon')).toEqual([]);
    expect(await memory.getDocumentStatus('moon')).toBeNull();
    await memory.deleteDocument('moon'); // no-op
  });

  it('deleting an index removes its records and files', async () => {
    const { memory, storage } = inMemory();
    await memory.importText(CARBON, { index: 'Chem Notes', documentId: 'c1' });
    expect((await memory.listIndexes()).map((i) => i.name)).toContain('chem-notes');
    await memory.deleteIndex('chem notes');
    expect((await memory.listIndexes()).map((i) => i.name)).not.toContain('chem-notes');
    expect(await storage.listDocuments('chem-notes')).toEqual([]);
  });

  it('re-importing a document that now has fewer partitions leaves no stale record or file', async () => {
    const { memory, db, storage } = inMemory();
    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} explains fact number ${i} about tides.`).join('\n\n');
    await memory.importDocument(
      { name: 'notes.txt', data: long },
      { documentId: 'notes', args: { maxTokensPerChunk: 60, overlapTokens: 0 } },
    );
    const before = await allRecords(db);
    expect(before.length).toBeGreaterThan(5);
    await memory.importDocument({ name: 'notes-v2.txt', data: 'Only one short paragraph remains about tides.' }, { documentId: 'notes' });
    const after = await allRecords(db);
    expect(after).toHaveLength(1);
    expect(after[0]!.payload.text).toBe('Only one short paragraph remains about tides.');
    const files = (await storage.listFiles('default', 'notes')).map((f) => f.name);
    expect(files.some((f) => f.startsWith('notes.txt'))).toBe(false);
    const status = await memory.getDocumentStatus('notes');
    expect(status).toMatchObject({ completed: true, failed: false });
  });

  it('re-importing unchanged text reuses stored embeddings (no new embedding call)', async () => {
    const counting = new CountingEmbeddingGenerator();
    const { memory } = inMemory((b) => b.withEmbeddingGenerator(counting));
    await memory.importText(CARBON, { documentId: 'c' });
    const first = counting.calls;
    await memory.importText(CARBON, { documentId: 'c' });
    expect(first).toBeGreaterThan(0);
    expect(counting.calls).toBe(first);
    await memory.importText(`${CARBON} Changed.`, { documentId: 'c' });
    expect(counting.calls).toBeGreaterThan(first);
  });

  it('a handler that throws once leaves the document failed with the reason; resuming completes without duplicates', async () => {
    let failures = 1;
    const flaky = (context: PipelineContext): IPipelineStepHandler => {
      const inner = new SaveRecordsHandler(context);
      return {
        stepName: 'save_records',
        async invoke(pipeline: DataPipeline, signal?: AbortSignal): Promise<StepOutcome> {
          if (failures-- > 0) {
            // Write part of the records, then crash: the retry must not duplicate them.
            await inner.invoke({ ...pipeline, files: pipeline.files.slice(0, 1) }, signal);
            throw new Error('disk on fire');
          }
          return inner.invoke(pipeline, signal);
        },
      };
    };
    const { memory, db } = inMemory((b) => b.withHandler(flaky));
    const doc = new Document('two-files')
      .addBuffer('a.txt', 'Alpha file text about apples.')
      .addBuffer('b.txt', 'Beta file text about bananas.');
    await expect(memory.importDocument(doc)).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
    const failed = await memory.getDocumentStatus('two-files');
    expect(failed).toMatchObject({ completed: false, failed: true, remaining_steps: ['save_records'] });
    expect(failed!.error).toContain('disk on fire');
    expect(await memory.isDocumentReady('two-files')).toBe(false);

    const resumed = await memory.resumeDocument('two-files');
    expect(resumed).toMatchObject({ completed: true, failed: false });
    expect(resumed.error).toBeUndefined();
    const records = await allRecords(db);
    expect(records).toHaveLength(2);
    expect(new Set(records.map((r) => r.id)).size).toBe(2);
  });

  it('a request can name its own steps, including a custom handler', async () => {
    const wordCount: IPipelineStepHandler & { context?: PipelineContext } = {
      stepName: 'word_count',
      async invoke(pipeline) {
        for (const file of pendingFiles(pipeline, 'word_count')) {
          markProcessed(file, 'word_count');
          file.tags.words = [String(file.size)];
        }
        return { result: 'success', pipeline };
      },
    };
    const { memory, db } = inMemory((b) => b.withHandler(wordCount));
    await memory.importText('one two three', {
      documentId: 'w',
      steps: ['word_count', 'extract', 'partition', 'gen_embeddings', 'save_records'],
    });
    const status = await memory.getDocumentStatus('w');
    expect(status!.completed_steps).toEqual(['word_count', 'extract', 'partition', 'gen_embeddings', 'save_records']);
    expect(await allRecords(db)).toHaveLength(1);
    await memory.importText('only extracted', { documentId: 'x', steps: ['extract'] });
    expect((await allRecords(db)).filter((r) => r.tags[ReservedTags.documentId]![0] === 'x')).toHaveLength(0);
  });

  it('summarize writes a summary record tagged __synth:summary', async () => {
    const generator = new ScriptedTextGenerator(() => 'Summary: carbon is element six.');
    const { memory, db } = inMemory((b) => b.withTextGenerator(generator));
    await memory.importText(CARBON, { documentId: 's', steps: ['extract', 'partition', 'summarize', 'gen_embeddings', 'save_records'] });
    const summaries = (await allRecords(db)).filter((r) => r.tags[ReservedTags.synthetic]?.includes('summary'));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.payload.text).toBe('Summary: carbon is element six.');
  });

  it('summarize without a text generator fails the document with the reason', async () => {
    const { memory } = inMemory();
    await expect(memory.importText(CARBON, { documentId: 's', steps: ['extract', 'summarize'] })).rejects.toThrow(/text generator/);
    expect((await memory.getDocumentStatus('s'))!.error).toContain('text generator');
  });

  it('writes every record to several memory DBs at once', async () => {
    const text = new SimpleTextDb();
    const { memory, db } = inMemory((b) => b.withMemoryDb(new SimpleVectorDb()).withMemoryDb(text));
    void db;
    await memory.importText(CARBON, { documentId: 'multi' });
    const hits = await collect(text.getSimilarList('default', 'graphite diamond'));
    expect(hits.map(([r]) => r.tags[ReservedTags.documentId]![0])).toEqual(['multi']);
    expect(await allRecords(db)).toHaveLength(1);
  });

  it('keeps files, vectors and status on disk across a restart', async () => {
    const dir = await tempDir();
    const first = new KernelMemoryBuilder()
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withDataDirectory(dir)
      .withLogger(silentLogger)
      .build();
    await first.importText(CARBON, { documentId: 'persisted', tags: { k: ['v'] } });
    const second = new KernelMemoryBuilder()
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withDataDirectory(dir)
      .withLogger(silentLogger)
      .build();
    expect(await second.isDocumentReady('persisted')).toBe(true);
    const found = await second.search('graphite', { filter: MemoryFilters.byTag('k', 'v') });
    expect(found.results[0]!.documentId).toBe('persisted');
    const file = await second.exportFile('persisted', 'content.txt');
    const chunks: Buffer[] = [];
    for await (const c of await file.getStream()) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe(CARBON);
    expect(file.size).toBe(Buffer.byteLength(CARBON));
  });

  it('imports files from disk paths', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.md'), '# A\n\nAardvarks dig burrows.');
    await writeFile(join(dir, 'b.txt'), 'Bees make honey.');
    const { memory, db } = inMemory();
    const id = await memory.importDocument([join(dir, 'a.md'), join(dir, 'b.txt')], { documentId: 'paths' });
    expect(id).toBe('paths');
    expect((await allRecords(db)).map((r) => r.payload.file).sort()).toEqual(['a.md', 'b.txt']);
  });

  it('importWebPage fetches a page and keeps its URL in citations', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<h1>Lighthouses</h1><p>Lighthouses guide ships along dangerous coasts.</p>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
      const { memory: guarded } = inMemory();
      await expect(guarded.importWebPage(url, { documentId: 'web' })).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
      const { memory } = inMemory((b) => b.withWebPageFetcher(new WebPageFetcher({ allowPrivateNetworks: true })));
      await memory.importWebPage(url, { documentId: 'web' });
      const result = await memory.search('lighthouses ships');
      expect(result.results[0]).toMatchObject({ documentId: 'web', sourceUrl: url, sourceContentType: 'text/html' });
      await expect(memory.importWebPage('file:///etc/passwd')).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
    } finally {
      server.close();
    }
  });
});

describe('MemoryServerless bad input', () => {
  it.each(['a/b', '..', '../x', 'has space', 'semi;colon', 'ü'])('document id %j: typed error, nothing written', async (id) => {
    const { memory, storage, db } = inMemory();
    await expect(memory.importText('text', { documentId: id })).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_document_id'));
    await expect(memory.getDocumentStatus(id)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_document_id'));
    await expect(memory.deleteDocument(id)).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_document_id'));
    expect(await storage.listIndexes()).toEqual([]);
    expect(await db.getIndexes()).toEqual([]);
  });

  it('an index name that cannot be normalised: typed error, nothing written', async () => {
    const { memory, storage } = inMemory();
    for (const index of ['bad*index', "x' OR 1=1", 'ünï']) {
      await expect(memory.importText('t', { index })).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
      await expect(memory.search('t', { index })).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_index_name'));
    }
    expect(await storage.listIndexes()).toEqual([]);
  });

  it('an empty file is logged and skipped; the document completes with no record', async () => {
    const { memory, db } = inMemory();
    await memory.importDocument({ name: 'empty.txt', data: '' }, { documentId: 'empty' });
    expect(await memory.getDocumentStatus('empty')).toMatchObject({ completed: true, failed: false });
    const pipeline = await memory.orchestrator.statusStore.read('default', 'empty');
    expect(pipeline!.files[0]!.log.map((l) => l.text).join()).toContain('empty file');
    expect(await allRecords(db)).toEqual([]);
  });

  it('a file whose type has no decoder fails, naming the package to install, while the other files are imported', async () => {
    const { memory, db } = inMemory();
    const doc = new Document('mixed').addBuffer('scan.pdf', Buffer.from('%PDF-1.4 fake')).addBuffer('ok.txt', 'Readable text here.');
    await expect(memory.importDocument(doc)).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
    const status = await memory.getDocumentStatus('mixed');
    expect(status).toMatchObject({ failed: true });
    expect(status!.failed_files![0]).toMatchObject({ name: 'scan.pdf' });
    expect(status!.failed_files![0]!.error).toMatch(/no decoder for application\/pdf: install @km\/decoders/);
    expect((await allRecords(db)).map((r) => r.payload.file)).toEqual(['ok.txt']);
  });

  it('a corrupt file fails alone; a document whose only file is corrupt ends failed with the reason', async () => {
    const { memory, db } = inMemory();
    const doc = new Document('half').addBuffer('bad.txt', Buffer.from([0x41, 0, 0x42])).addBuffer('good.txt', 'Good text.');
    await expect(memory.importDocument(doc)).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
    const pipeline = await memory.orchestrator.statusStore.read('default', 'half');
    expect(pipeline!.files[0]!.error).toMatch(/looks binary/);
    expect((await allRecords(db)).map((r) => r.payload.file)).toEqual(['good.txt']);
    await expect(memory.importDocument({ name: 'bin.txt', data: Buffer.from([0, 1, 2, 0]) }, { documentId: 'bin' })).rejects.toThrow(
      /binary/,
    );
    expect(await memory.getDocumentStatus('bin')).toMatchObject({ failed: true });
  });

  it('a filter on a reserved tag written wrong gives invalid_filter', async () => {
    const { memory } = inMemory();
    await expect(memory.search('x', { filters: [{ __document: ['d'] } as never] })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_filter'),
    );
    await expect(memory.ask('x', { filters: [{ __documentid: ['d'] } as never] })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_filter'),
    );
  });

  it('reserved tags cannot be set by callers', async () => {
    const { memory, storage } = inMemory();
    await expect(memory.importText('t', { documentId: 'r', tags: { __document_id: ['other'] } })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'invalid_tag'),
    );
    expect(await storage.listIndexes()).toEqual([]);
  });

  it('an unknown step is refused before anything is written', async () => {
    const { memory, storage } = inMemory();
    await expect(memory.importText('t', { documentId: 's', steps: ['extract', 'no_such_step'] })).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'handler_not_found'),
    );
    expect(await storage.listIndexes()).toEqual([]);
  });

  it('bad minRelevance, missing file export and unknown document resume give typed errors', async () => {
    const { memory } = inMemory();
    await expect(memory.search('x', { minRelevance: 2 })).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
    await expect(memory.exportFile('nope', 'x.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
    await expect(memory.exportFile('nope', '../x.txt')).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_file_name'));
    await expect(memory.resumeDocument('nope')).rejects.toSatisfy((e: unknown) => isKmError(e, 'document_not_found'));
    await expect(memory.ask('   ')).rejects.toSatisfy((e: unknown) => isKmError(e, 'invalid_argument'));
  });

  it('a vector DB with no embedding generator fails the document with a clear reason', async () => {
    const { memory } = inMemory((b) => b.withEmbeddingGenerator(null));
    await expect(memory.importText('text', { documentId: 'nov' })).rejects.toSatisfy((e: unknown) => isKmError(e, 'pipeline_failed'));
    expect((await memory.getDocumentStatus('nov'))!.error).toContain('needs embeddings');
  });

  it('a stream that fails mid-upload leaves nothing behind', async () => {
    const { memory, storage } = inMemory();
    async function* failing() {
      yield Buffer.from('start');
      throw new Error('connection reset');
    }
    await expect(memory.importDocument({ name: 'f.txt', stream: failing() }, { documentId: 'cut' })).rejects.toThrow('connection reset');
    expect(await storage.listFiles('default', 'cut')).toEqual([]);
    expect(await memory.getDocumentStatus('cut')).toBeNull();
  });
});
