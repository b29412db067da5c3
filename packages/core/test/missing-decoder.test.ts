import { describe, expect, it } from 'vitest';
import { HashingEmbeddingGenerator, KernelMemoryBuilder, MemoryContentStorage, SimpleVectorDb, isKmError, silentLogger } from '../src/index.js';

function setup() {
  return new KernelMemoryBuilder()
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withMemoryDb(new SimpleVectorDb())
    .withContentStorage(new MemoryContentStorage())
    .withLogger(silentLogger)
    .build();
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');

describe('a file nobody can decode fails with a reason naming what to install', () => {
  it('a PDF without @km/decoders: the document fails and says to install @km/decoders', async () => {
    const memory = setup();
    const error = await memory.importDocument({ name: 'report.pdf', data: PDF }, { documentId: 'pdf' }).catch((e: unknown) => e);
    expect(isKmError(error, 'pipeline_failed')).toBe(true);
    const status = await memory.getDocumentStatus('pdf');
    expect(status).toMatchObject({ completed: false, failed: true, empty: false });
    expect(status?.error).toMatch(/report\.pdf: no decoder for application\/pdf: install @km\/decoders/);
    expect(status?.failed_files).toEqual([{ name: 'report.pdf', error: expect.stringMatching(/@km\/decoders/) }]);
    expect(await memory.isDocumentReady('pdf')).toBe(false);
  });

  it('Office files and images name @km/decoders too; a type no package reads gets a generic reason', async () => {
    const memory = setup();
    await memory.importDocument({ name: 'photo.jpg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) }, { documentId: 'jpg' }).catch(() => undefined);
    await memory.importDocument({ name: 'sheet.xlsx', data: Buffer.from('PK\x03\x04', 'latin1') }, { documentId: 'xlsx' }).catch(() => undefined);
    await memory.importDocument({ name: 'blob', data: Buffer.from([0, 1, 2, 3]) }, { documentId: 'bin' }).catch(() => undefined);
    expect((await memory.getDocumentStatus('jpg'))?.error).toMatch(/image\/jpeg: install @km\/decoders/);
    expect((await memory.getDocumentStatus('xlsx'))?.error).toMatch(/spreadsheetml\.sheet: install @km\/decoders/);
    const generic = (await memory.getDocumentStatus('bin'))?.error;
    expect(generic).toMatch(/no decoder for application\/octet-stream/);
    expect(generic).not.toMatch(/@km\/decoders/);
  });
});
