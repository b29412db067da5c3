import { describe, expect, it } from 'vitest';
import { detectFileType, sniffMimeType } from '../src/connector.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** The head of a ZIP whose local file headers carry these entry names (stored, tiny bodies). */
function zipHead(...names: string[]): Buffer {
  const parts = names.map((name) => {
    const header = Buffer.alloc(30);
    header.write('PK\x03\x04', 0, 'latin1');
    header.writeUInt16LE(name.length, 26);
    header.writeUInt32LE(2, 18);
    return Buffer.concat([header, Buffer.from(name, 'latin1'), Buffer.from('ok')]);
  });
  return Buffer.concat(parts);
}

const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00', 'latin1');
const TIFF = Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]);
const HTML = Buffer.from('  <!DOCTYPE html><html><body><p>Hello</p></body></html>');
const text = (s: string) => Buffer.from(s);

describe('detectFileType', () => {
  it('believes a known extension first, whatever was declared (as Kernel Memory does)', () => {
    expect(detectFileType({ fileName: 'x.html', declaredType: 'text/plain', head: HTML })).toBe('text/html');
    expect(detectFileType({ fileName: 'report.PDF', declaredType: 'text/plain', head: PDF })).toBe('application/pdf');
    expect(detectFileType({ fileName: 'a.docx', declaredType: 'application/octet-stream', head: zipHead('[Content_Types].xml') })).toBe(
      DOCX,
    );
    expect(detectFileType({ fileName: 'notes.md', declaredType: 'text/html', head: text('# Title') })).toBe('text/markdown');
  });

  it('ignores a declared type that says nothing (text/plain, octet-stream, empty) and sniffs the bytes', () => {
    for (const declaredType of ['text/plain', 'text/plain; charset=utf-8', 'application/octet-stream', '', undefined]) {
      expect(detectFileType({ fileName: 'upload', declaredType, head: PDF })).toBe('application/pdf');
      expect(detectFileType({ fileName: 'upload', declaredType, head: HTML })).toBe('text/html');
    }
  });

  it('believes a specific declared type that agrees with the bytes', () => {
    expect(detectFileType({ fileName: 'blob', declaredType: 'application/pdf', head: PDF })).toBe('application/pdf');
    expect(detectFileType({ fileName: 'page', declaredType: 'text/html; charset=utf-8', head: text('Just words') })).toBe('text/html');
    expect(detectFileType({ fileName: 'data', declaredType: 'text/csv', head: text('a,b\n1,2') })).toBe('text/csv');
    expect(detectFileType({ fileName: 'photo', declaredType: 'image/jpg', head: JPEG })).toBe('image/jpg');
    // A type km has no signature for is believed unless the bytes are a known other format.
    expect(detectFileType({ fileName: 'x.bin', declaredType: 'application/x-custom', head: text('x') })).toBe('application/x-custom');
  });

  it('with declaredFirst (web responses), a specific declared type that agrees with the bytes comes before the extension', () => {
    expect(detectFileType({ fileName: 'README.md', declaredType: 'text/html', head: HTML, declaredFirst: true })).toBe('text/html');
    expect(detectFileType({ fileName: 'File:X.pdf', declaredType: 'text/html; charset=utf-8', head: HTML, declaredFirst: true })).toBe(
      'text/html',
    );
    // Unspecific or contradicted declarations still leave the extension, then the bytes, in charge.
    expect(detectFileType({ fileName: 'README.md', declaredType: 'text/plain', head: text('# T'), declaredFirst: true })).toBe(
      'text/markdown',
    );
    expect(detectFileType({ fileName: 'paper.pdf', declaredType: 'text/html', head: PDF, declaredFirst: true })).toBe('application/pdf');
    expect(detectFileType({ fileName: 'page', declaredType: 'application/pdf', head: HTML, declaredFirst: true })).toBe('text/html');
    // Without it, the extension wins (uploads, as Kernel Memory).
    expect(detectFileType({ fileName: 'README.md', declaredType: 'text/html', head: HTML })).toBe('text/markdown');
  });

  it('does not believe a declared type that the bytes contradict', () => {
    expect(detectFileType({ fileName: 'upload', declaredType: 'text/html', head: PDF })).toBe('application/pdf');
    expect(detectFileType({ fileName: 'upload', declaredType: 'text/markdown', head: Buffer.from([1, 0, 2, 0]) })).toBe(
      'application/octet-stream',
    );
    expect(detectFileType({ fileName: 'upload', declaredType: 'application/pdf', head: text('not a pdf') })).toBe('text/plain');
    expect(detectFileType({ fileName: 'upload', declaredType: 'image/png', head: JPEG })).toBe('image/jpeg');
    expect(detectFileType({ fileName: 'upload', declaredType: DOCX, head: HTML })).toBe('text/html');
    expect(detectFileType({ fileName: 'upload', declaredType: 'application/x-custom', head: PNG })).toBe('image/png');
  });

  it('sniffs magic bytes when the name and the declared type say nothing', () => {
    expect(detectFileType({ fileName: 'a', head: PNG })).toBe('image/png');
    expect(detectFileType({ fileName: 'a', head: JPEG })).toBe('image/jpeg');
    expect(detectFileType({ fileName: 'a', head: GIF })).toBe('image/gif');
    expect(detectFileType({ fileName: 'a', head: TIFF })).toBe('image/tiff');
    expect(detectFileType({ fileName: 'a', head: Buffer.from([0x4d, 0x4d, 0, 0x2a]) })).toBe('image/tiff');
  });

  it('tells Word, Excel and PowerPoint apart by the entry names visible in the head of the ZIP', () => {
    expect(detectFileType({ fileName: 'a', head: zipHead('[Content_Types].xml', '_rels/.rels', 'word/document.xml') })).toBe(DOCX);
    expect(detectFileType({ fileName: 'a', head: zipHead('[Content_Types].xml', 'xl/workbook.xml') })).toBe(XLSX);
    expect(detectFileType({ fileName: 'a', head: zipHead('ppt/presentation.xml') })).toBe(PPTX);
    expect(detectFileType({ fileName: 'a', head: zipHead('readme.txt') })).toBe('application/zip');
    expect(detectFileType({ fileName: 'a', declaredType: XLSX, head: zipHead('[Content_Types].xml') })).toBe(XLSX);
  });

  it('sniffs HTML, JSON and plain text, and calls other bytes octet-stream', () => {
    expect(detectFileType({ fileName: 'a', head: text('\ufeff<html lang="en"><head><title>t</title></head>') })).toBe('text/html');
    expect(detectFileType({ fileName: 'a', head: text('<p>fragment</p><body>x</body>') })).toBe('text/html');
    expect(detectFileType({ fileName: 'a', head: text('{\n  "name": "km"\n}') })).toBe('application/json');
    expect(detectFileType({ fileName: 'a', head: text('[1, 2, 3]') })).toBe('application/json');
    expect(detectFileType({ fileName: 'a', head: text('[see note] plain prose') })).toBe('text/plain');
    expect(detectFileType({ fileName: 'a', head: text('Plain words.') })).toBe('text/plain');
    expect(detectFileType({ fileName: 'a', head: Buffer.from([0x00, 0x01, 0x02]) })).toBe('application/octet-stream');
    expect(detectFileType({ fileName: 'a', head: Buffer.alloc(0) })).toBe('text/plain');
  });

  it('sniffMimeType (deprecated) follows the same rule', () => {
    expect(sniffMimeType(PDF, '/files/download')).toBe('application/pdf');
    expect(sniffMimeType(text('plain'), '/notes.md')).toBe('text/markdown');
  });
});
