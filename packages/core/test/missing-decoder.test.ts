import { describe, expect, it } from 'vitest';
import { isKmError } from '../src/index.js';
import { missingDecoderReason } from '../src/decoders/missing-decoder.js';
import { inMemoryBuilder } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');

describe('a file nobody can decode fails with a reason naming what to install', () => {
  it('a PDF without @km/decoders: the document fails and says to install @km/decoders', async () => {
    const memory = inMemoryBuilder().build();
    const error = await memory.importDocument({ name: 'report.pdf', data: PDF }, { documentId: 'pdf' }).catch((e: unknown) => e);
    expect(isKmError(error, 'pipeline_failed')).toBe(true);
    const status = await memory.getDocumentStatus('pdf');
    expect(status).toMatchObject({ completed: false, failed: true, empty: false });
    expect(status?.error).toMatch(/report\.pdf: no decoder for application\/pdf: install @km\/decoders/);
    expect(status?.failed_files).toEqual([{ name: 'report.pdf', error: expect.stringMatching(/@km\/decoders/) }]);
    expect(await memory.isDocumentReady('pdf')).toBe(false);
  });

  it('Office files and images name @km/decoders too; a type no package reads gets a generic reason', async () => {
    const memory = inMemoryBuilder().build();
    await memory
      .importDocument({ name: 'photo.jpg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) }, { documentId: 'jpg' })
      .catch(() => undefined);
    await memory
      .importDocument({ name: 'sheet.xlsx', data: Buffer.from('PK\x03\x04', 'latin1') }, { documentId: 'xlsx' })
      .catch(() => undefined);
    await memory.importDocument({ name: 'blob', data: Buffer.from([0, 1, 2, 3]) }, { documentId: 'bin' }).catch(() => undefined);
    expect((await memory.getDocumentStatus('jpg'))?.error).toMatch(/image\/jpeg: install @km\/decoders/);
    expect((await memory.getDocumentStatus('xlsx'))?.error).toMatch(/spreadsheetml\.sheet: install @km\/decoders/);
    const generic = (await memory.getDocumentStatus('bin'))?.error;
    expect(generic).toMatch(/no decoder for application\/octet-stream/);
    expect(generic).not.toMatch(/@km\/decoders/);
  });

  it('a GIF or an SVG, which @km/decoders does not read, gets the generic reason, not "install @km/decoders"', async () => {
    const memory = inMemoryBuilder().build();
    await memory
      .importDocument({ name: 'anim.gif', data: Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1') }, { documentId: 'gif' })
      .catch(() => undefined);
    await memory
      .importDocument(
        { name: 'logo.svg', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), mimeType: 'image/svg+xml' },
        { documentId: 'svg' },
      )
      .catch(() => undefined);
    const gif = (await memory.getDocumentStatus('gif'))?.error;
    expect(gif).toMatch(/anim\.gif: no decoder for image\/gif: none is registered for this type/);
    expect(gif).not.toMatch(/install @km\/decoders/);
    const svg = (await memory.getDocumentStatus('svg'))?.error;
    expect(svg).toMatch(/no decoder for image\/svg\+xml: none is registered/);
    expect(svg).not.toMatch(/install @km\/decoders/);
  });

  it('names @km/decoders for exactly the types it reads', () => {
    for (const type of [
      'application/pdf',
      'image/png',
      'image/jpeg',
      'image/tiff',
      'image/bmp',
      'image/webp',
      'text/csv; charset=utf-8',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ]) {
      expect(missingDecoderReason(type)).toMatch(/install @km\/decoders/);
    }
    for (const type of [
      'image/gif',
      'image/svg+xml',
      'image/heic',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.template',
      'application/msword',
    ]) {
      expect(missingDecoderReason(type)).not.toMatch(/@km\/decoders/);
    }
  });
});
