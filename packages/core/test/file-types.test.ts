import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Document, ReservedTags, type SimpleVectorDb, WebPageFetcher } from '../src/index.js';
import { allRecords, inMemory, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-types-');

const PAGE =
  '<!DOCTYPE html><html><head><title>Harbours</title><style>p{color:red}</style></head><body><p>Tugboats push container ships into the harbour.</p></body></html>';

/** The text km indexed for a document, and the type it recorded. */
async function indexed(db: SimpleVectorDb, documentId: string) {
  const records = (await allRecords(db)).filter((r) => r.tags[ReservedTags.documentId]?.[0] === documentId);
  return { text: records.map((r) => String(r.payload.text)).join('\n'), types: records.map((r) => r.tags[ReservedTags.fileType]?.[0]) };
}

describe('file types of imported files (extension, then a specific declared type that agrees with the bytes, then the bytes)', () => {
  it('an .html stream declared text/plain (as a multipart part without Content-Type) is indexed as text, not markup', async () => {
    const { memory, db } = inMemory();
    await memory.importDocument(
      new Document('stream').addStream(
        'x.html',
        Readable.from([Buffer.from(PAGE.slice(0, 40)), Buffer.from(PAGE.slice(40))]),
        'text/plain',
      ),
    );
    const { text, types } = await indexed(db, 'stream');
    expect(types).toEqual(['text/html']);
    expect(text).toContain('Tugboats push container ships');
    expect(text).not.toMatch(/<p>|<body>|color:red/);
    expect((await memory.getDocumentStatus('stream'))?.completed).toBe(true);
  });

  it('a file without extension declared text/plain is sniffed from its first bytes (buffer and path alike)', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'page'), PAGE);
    const { memory, db } = inMemory();
    await memory.importDocument(new Document('path').addFile(join(dir, 'page'), 'page', 'text/plain'));
    await memory.importDocument(new Document('buffer').addBuffer('settings', '{ "harbour": "Tugboats" }', 'application/octet-stream'));
    expect((await indexed(db, 'path')).types).toEqual(['text/html']);
    expect((await indexed(db, 'path')).text).not.toContain('<p>');
    expect((await indexed(db, 'buffer')).types).toEqual(['application/json']);
  });

  it('a PDF uploaded as text/plain is typed application/pdf, not refused as "looks binary" text', async () => {
    const { memory } = inMemory();
    const pdf = Buffer.from('%PDF-1.4\n%\u00e2\u00e3\n1 0 obj\n<< >>\nendobj\n\u0000\u0001', 'latin1');
    await memory.importDocument(new Document('pdf').addBuffer('scan.pdf', pdf, 'text/plain')).catch(() => undefined);
    await memory.importDocument(new Document('pdf-noext').addBuffer('scan', pdf, 'text/plain')).catch(() => undefined);
    for (const id of ['pdf', 'pdf-noext']) {
      const status = await memory.getDocumentStatus(id);
      expect(status?.failed_files?.[0]?.error).not.toMatch(/looks binary/);
      expect(status?.failed_files?.[0]?.error).toMatch(/application\/pdf/);
    }
  });

  it('a web page served as text/plain whose bytes are HTML is indexed as text', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(PAGE);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/harbours`;
      const { memory, db } = inMemory((b) => b.withWebPageFetcher(new WebPageFetcher({ allowPrivateNetworks: true })));
      await memory.importWebPage(url, { documentId: 'web' });
      const { text, types } = await indexed(db, 'web');
      expect(types).toEqual(['text/html']);
      expect(text).toContain('Tugboats');
      expect(text).not.toContain('<p>');
    } finally {
      server.close();
    }
  });
});
