import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Document, HashingEmbeddingGenerator, KernelMemoryBuilder, silentLogger, WebPageFetcher, type IContentDecoder } from '@km/core';
import { describe, expect, it } from 'vitest';
import { createDecoders } from '../src/index.js';
import { makeDocx, makePptx, makeXlsx, makeZipBomb } from './fixtures/ooxml-fixtures.js';
import { makeEncryptedPdf, makePdf } from './fixtures/pdf-fixtures.js';

function memory(extra: (b: KernelMemoryBuilder) => KernelMemoryBuilder = (b) => b) {
  const builder = new KernelMemoryBuilder().withLogger(silentLogger).withEmbeddingGenerator(new HashingEmbeddingGenerator());
  for (const decoder of createDecoders({ limits: { maxUncompressedBytes: 4 * 1024 * 1024 }, ocr: false })) builder.withDecoder(decoder);
  return extra(builder).build();
}

const PAGES = [
  'Lighthouses guide ships along rocky coasts.',
  'Glaciers carve deep valleys over millennia.',
  'Volcanoes release ash and lava when they erupt.',
];

describe('decoders in the pipeline', () => {
  it('page numbers of a PDF reach the citations', async () => {
    const km = memory();
    await km.importDocument({ name: 'nature.pdf', data: await makePdf(3, (n) => [PAGES[n - 1]!]) }, { documentId: 'nature' });
    const result = await km.search('volcanoes erupt lava ash', { limit: 1 });
    const citation = result.results[0]!;
    expect(citation).toMatchObject({ documentId: 'nature', sourceName: 'nature.pdf', sourceContentType: 'application/pdf' });
    expect(citation.partitions[0]).toMatchObject({ sectionNumber: 3 });
    const glacier = await km.search('glaciers valleys', { limit: 1 });
    expect(glacier.results[0]!.partitions[0]!.sectionNumber).toBe(2);
  });

  it('bad files fail alone, with their reasons in the status; the good ones are searchable', async () => {
    const km = memory();
    const pdf = await makePdf(2, (n) => [`Report page ${n} on submarine cables.`]);
    const document = new Document('mixed')
      .addBuffer('good.pdf', pdf)
      .addBuffer('slides.pptx', makePptx([{ title: 'Cable repair ships', body: ['Grapnels lift the cable'], notes: 'Repair takes days.' }]))
      .addBuffer(
        'table.xlsx',
        makeXlsx([
          {
            name: 'Ships',
            rows: [
              ['Ship', 'Port'],
              ['Atlantic Guardian', 'Brest'],
            ],
          },
        ]),
      )
      .addBuffer('bomb.docx', makeZipBomb(20 * 1024 * 1024))
      .addBuffer('locked.pdf', makeEncryptedPdf())
      .addBuffer('cut.pdf', pdf.subarray(0, pdf.length >> 1))
      .addBuffer(
        'notes.docx',
        makeDocx([
          { text: 'Cable notes', heading: 1 },
          [
            ['Cable', 'Length'],
            ['MAREA', '6600 km'],
          ],
        ]),
      );
    // A failed file makes the document failed (core's readiness rule); the good files are still indexed.
    const error = await km.importDocument(document).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'pipeline_failed', message: expect.stringMatching(/3 of 7 file\(s\)/) });
    const status = await km.getDocumentStatus('mixed');
    expect(status).toMatchObject({ completed: false, failed: true });
    const failures = Object.fromEntries((status!.failed_files ?? []).map((f) => [f.name, f.error]));
    expect(Object.keys(failures).sort()).toEqual(['bomb.docx', 'cut.pdf', 'locked.pdf']);
    expect(failures['bomb.docx']).toMatch(/word\/document\.xml.*maxCompressionRatio/);
    expect(failures['locked.pdf']).toMatch(/encrypted/);
    expect(failures['cut.pdf']).toMatch(/truncated/);
    const files = async (query: string) => (await km.search(query, { limit: 5, minRelevance: 0.05 })).results.map((c) => c.sourceName);
    expect(await files('Atlantic Guardian Brest port')).toContain('table.xlsx');
    expect(await files('grapnels lift the cable repair')).toContain('slides.pptx');
    expect(await files('MAREA cable length 6600 km')).toContain('notes.docx');
    // Another document goes on as usual.
    await km.importText('Unrelated text after the failures.', { documentId: 'after' });
    expect((await km.getDocumentStatus('after'))?.completed).toBe(true);
  });

  it('a decoder over the time limit fails its file only', async () => {
    const hanging: IContentDecoder = {
      name: 'hangs',
      supportsMimeType: (m) => m === 'application/x-hang',
      decode: () => new Promise(() => undefined),
    };
    const km = memory((b) => b.withDecoder(hanging).withExtractionOptions({ decoderTimeoutMs: 200 }));
    const document = new Document('slow')
      .addBuffer('stuck.bin', Buffer.from('x'), 'application/x-hang')
      .addBuffer('fine.txt', Buffer.from('Fine text.'));
    await expect(km.importDocument(document)).rejects.toMatchObject({
      code: 'pipeline_failed',
      message: expect.stringMatching(/stuck\.bin/),
    });
    const status = await km.getDocumentStatus('slow');
    expect(status).toMatchObject({ completed: false, failed: true });
    expect(status?.failed_files).toEqual([{ name: 'stuck.bin', error: expect.stringMatching(/longer than 200 ms \(decoderTimeoutMs\)/) }]);
  });

  it('a document whose only file is bad fails with the reason', async () => {
    const km = memory();
    await km.importDocument({ name: 'locked.pdf', data: makeEncryptedPdf() }, { documentId: 'locked' }).catch(() => undefined);
    const status = await km.getDocumentStatus('locked');
    expect(status).toMatchObject({ failed: true, error: expect.stringMatching(/locked\.pdf: .*encrypted/) });
  });

  it('imports a PDF and an HTML page served on 127.0.0.1 when private networks are allowed', async () => {
    const pdf = await makePdf(2, (n) => (n === 2 ? ['Penguins huddle together to stay warm.'] : ['Cover page.']));
    const server = createServer((req, res) => {
      if (req.url === '/guide.pdf') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(pdf);
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body><h1>Penguins</h1><ul><li>Emperor penguins breed in winter.</li></ul></body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expect(memory().importWebPage(`${base}/guide.pdf`)).rejects.toMatchObject({
        message: expect.stringMatching(/allowPrivateNetworks/),
      });
      const km = memory((b) => b.withWebPageFetcher(new WebPageFetcher({ allowPrivateNetworks: true })));
      await km.importWebPage(`${base}/guide.pdf`, { documentId: 'guide' });
      await km.importWebPage(`${base}/penguins.html`, { documentId: 'page' });
      const pdfHit = (await km.search('penguins huddle warm', { limit: 1 })).results[0]!;
      expect(pdfHit).toMatchObject({ documentId: 'guide', sourceUrl: `${base}/guide.pdf`, sourceContentType: 'application/pdf' });
      expect(pdfHit.partitions[0]!.sectionNumber).toBe(2);
      const htmlHit = (await km.search('emperor penguins breed winter', { limit: 1 })).results[0]!;
      expect(htmlHit).toMatchObject({ documentId: 'page', sourceUrl: `${base}/penguins.html` });
      expect(htmlHit.partitions[0]!.text).toContain('# Penguins');
    } finally {
      server.close();
    }
  });
});
