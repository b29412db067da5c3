import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DiskContentStorage,
  Document,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  LEGACY_PIPELINE_STATUS_FILE,
  MemoryContentStorage,
  PIPELINE_STATUS_FILE,
  silentLogger,
  SimpleVectorDb,
  validateFileName,
  type IContentStorage,
} from '../src/index.js';
import { isInternalFileName, withoutInternalPrefix } from '../src/pipeline/internal-file-names.js';
import { thrownCode } from './helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'km-legacy-'));
  dirs.push(dir);
  return dir;
}

function build(storage: IContentStorage = new MemoryContentStorage()) {
  const memory = new KernelMemoryBuilder()
    .withContentStorage(storage)
    .withMemoryDb(new SimpleVectorDb())
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withLogger(silentLogger)
    .build();
  return { memory, storage };
}

async function download(memory: ReturnType<typeof build>['memory'], documentId: string, fileName: string): Promise<string> {
  const file = await memory.exportFile(documentId, fileName);
  const chunks: Buffer[] = [];
  for await (const chunk of await file.getStream()) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

describe("km's own files", () => {
  it('are named with the ..km. prefix, which an uploaded name may not have', async () => {
    const { memory, storage } = build();
    await memory.importDocument(new Document('d').addBuffer('a.txt', 'The Moon orbits the Earth.'));
    const names = (await storage.listFiles('default', 'd')).map((f) => f.name);
    expect(names).toContain(PIPELINE_STATUS_FILE);
    expect(names.filter((n) => !isInternalFileName(n))).toEqual(['a.txt']);
    expect(names).toEqual(expect.arrayContaining(['..km.a.txt.extract.txt', '..km.a.txt.extract.json', '..km.a.txt.partition.0.txt']));
    expect(thrownCode(() => validateFileName('..km.a.txt', { uploaded: true }))).toBe('invalid_file_name');
    expect(thrownCode(() => new Document('e').addBuffer('..km.pipeline_status.json', '{}'))).toBe('invalid_file_name');
  });

  it('never overwrite an upload named like a derived file: both come back as uploaded', async () => {
    const { memory } = build();
    await memory.importDocument(
      new Document('d').addBuffer('a.txt', 'Comets have tails.').addBuffer('a.txt.extract.txt', 'My own notes about comets.'),
    );
    expect(await memory.getDocumentStatus('d')).toMatchObject({ completed: true, failed: false });
    expect(await download(memory, 'd', 'a.txt')).toBe('Comets have tails.');
    expect(await download(memory, 'd', 'a.txt.extract.txt')).toBe('My own notes about comets.');
    const sources = (await memory.search('comets', { minRelevance: 0 })).results.map((r) => r.sourceName).sort();
    expect(sources).toEqual(['a.txt', 'a.txt.extract.txt']);
  });

  it('keep an upload named __pipeline_status.json as the user’s file, apart from the state', async () => {
    const { memory, storage } = build();
    await memory.importDocument(new Document('d').addBuffer('__pipeline_status.json', '{"planets":["Mars"]}'));
    expect(await memory.getDocumentStatus('d')).toMatchObject({ completed: true, failed: false });
    expect(await download(memory, 'd', '__pipeline_status.json')).toBe('{"planets":["Mars"]}');
    // A second import of the document reads its state, not the upload.
    await memory.importDocument(new Document('d').addBuffer('__pipeline_status.json', '{"planets":["Venus"]}'));
    expect(await download(memory, 'd', '__pipeline_status.json')).toBe('{"planets":["Venus"]}');
    const state = JSON.parse((await storage.readFile('default', 'd', PIPELINE_STATUS_FILE)).toString()) as { files: { name: string }[] };
    expect(state.files.map((f) => f.name)).toEqual(['__pipeline_status.json']);
  });
});

describe('a document written by an earlier version (legacy names)', () => {
  /** Rewrites document `d` as earlier versions laid it out: no `..km.` prefix, state in `__pipeline_status.json`. */
  async function makeLegacy(storage: IContentStorage, remainingSteps: string[]): Promise<void> {
    for (const file of await storage.listFiles('default', 'd')) {
      if (!isInternalFileName(file.name) || file.name === PIPELINE_STATUS_FILE) continue;
      await storage.writeFile('default', 'd', withoutInternalPrefix(file.name), await storage.readFile('default', 'd', file.name));
      await storage.deleteFile('default', 'd', file.name);
    }
    const state = JSON.parse((await storage.readFile('default', 'd', PIPELINE_STATUS_FILE)).toString().replaceAll('..km.', '')) as {
      remaining_steps: string[];
      completed_steps: string[];
    };
    state.remaining_steps = remainingSteps;
    state.completed_steps = state.completed_steps.filter((s) => !remainingSteps.includes(s));
    await storage.writeFile('default', 'd', LEGACY_PIPELINE_STATUS_FILE, JSON.stringify(state));
    await storage.deleteFile('default', 'd', PIPELINE_STATUS_FILE);
  }

  it.each([
    ['in memory', () => new MemoryContentStorage()],
    ['on disk', () => new DiskContentStorage({ directory: tempDir(), durable: false })],
  ])('stays readable, resumes from its legacy derived files, and moves its state to the new name (%s)', async (_, create) => {
    const { memory, storage } = build(create());
    await memory.importDocument(new Document('d').addBuffer('a.txt', 'The Moon orbits the Earth.'), { steps: ['extract', 'partition'] });
    await makeLegacy(storage, ['gen_embeddings', 'save_records']);
    expect(await storage.fileExists('default', 'd', 'a.txt.partition.0.txt')).toBe(true);
    expect(await memory.getDocumentStatus('d')).toMatchObject({ completed: false, remaining_steps: ['gen_embeddings', 'save_records'] });

    await memory.resumeDocument('d');
    expect(await memory.getDocumentStatus('d')).toMatchObject({ completed: true, failed: false });
    expect((await memory.search('Moon')).results[0]?.sourceName).toBe('a.txt');
    const names = (await storage.listFiles('default', 'd')).map((f) => f.name);
    expect(names).toContain(PIPELINE_STATUS_FILE);
    expect(names).not.toContain(LEGACY_PIPELINE_STATUS_FILE);
    // The embedding of a legacy partition is written in km's namespace.
    expect(names.filter((n) => n.endsWith('.text_embedding')).every(isInternalFileName)).toBe(true);
  });

  it('keeps the vectors stored under legacy names when its embeddings are computed again', async () => {
    const generator = new HashingEmbeddingGenerator();
    let embedded = 0;
    const counting = Object.assign(Object.create(generator) as HashingEmbeddingGenerator, {
      generateEmbeddings: (...args: Parameters<HashingEmbeddingGenerator['generateEmbeddings']>) => {
        embedded += args[0].length;
        return generator.generateEmbeddings(...args);
      },
    });
    const storage = new MemoryContentStorage();
    const memory = new KernelMemoryBuilder()
      .withContentStorage(storage)
      .withMemoryDb(new SimpleVectorDb())
      .withEmbeddingGenerator(counting)
      .withLogger(silentLogger)
      .build();
    await memory.importDocument(new Document('d').addBuffer('a.txt', 'The Moon orbits the Earth.'));
    expect(embedded).toBe(1);
    await makeLegacy(storage, ['gen_embeddings', 'save_records']);
    const state = JSON.parse((await storage.readFile('default', 'd', LEGACY_PIPELINE_STATUS_FILE)).toString()) as {
      files: { processed_by: string[] }[];
    };
    for (const file of state.files) file.processed_by = file.processed_by.filter((s) => s !== 'gen_embeddings' && s !== 'save_records');
    await storage.writeFile('default', 'd', LEGACY_PIPELINE_STATUS_FILE, JSON.stringify(state));
    await memory.resumeDocument('d');
    expect(embedded).toBe(1);
    expect((await memory.search('Moon')).results[0]?.sourceName).toBe('a.txt');
  });

  it('is replaced whole by a new import, legacy state and derived files included', async () => {
    const { memory, storage } = build();
    await memory.importDocument(new Document('d').addBuffer('a.txt', 'The Moon orbits the Earth.'));
    await makeLegacy(storage, []);
    await memory.importDocument(new Document('d').addBuffer('a.txt', 'Mars has two moons.'));
    const names = (await storage.listFiles('default', 'd')).map((f) => f.name);
    expect(names.filter((n) => !isInternalFileName(n))).toEqual(['a.txt']);
    expect((await memory.search('Mars')).results[0]?.sourceName).toBe('a.txt');
  });

  it('takes a legacy-named file that is not its state for an upload, not a state', async () => {
    const { memory, storage } = build();
    await storage.createIndexDirectory('default');
    await storage.writeFile('default', 'x', LEGACY_PIPELINE_STATUS_FILE, '{"index":"default","document_id":"other","files":[]}');
    expect(await memory.getDocumentStatus('x')).toBeNull();
    await storage.writeFile('default', 'x', LEGACY_PIPELINE_STATUS_FILE, 'not json');
    expect(await memory.getDocumentStatus('x')).toBeNull();
  });
});
