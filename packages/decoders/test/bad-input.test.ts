import { describe, expect, it } from 'vitest';
import { DocxDecoder, PdfDecoder, PptxDecoder, XlsxDecoder, CsvDecoder } from '../src/index.js';
import { makeDocx, makeManyEntries, makePptx, makeXlsx, makeZipBomb } from './fixtures/ooxml-fixtures.js';
import { makeEncryptedPdf, makePdf } from './fixtures/pdf-fixtures.js';

const reason = (e: unknown) => (e as Error).message;

describe('bad input: each fails with a reason that says what is wrong', () => {
  it('an encrypted PDF', async () => {
    const error = await new PdfDecoder().decode(makeEncryptedPdf()).catch((e) => e);
    expect(error).toMatchObject({ code: 'unsupported_content' });
    expect(reason(error)).toMatch(/encrypted \(password protected\)/);
  });

  it('a truncated PDF and a corrupt one', async () => {
    const pdf = await makePdf(5, (n) => [`Page ${n}`]);
    await expect(new PdfDecoder().decode(pdf.subarray(0, Math.floor(pdf.length * 0.6)))).rejects.toMatchObject({
      message: expect.stringMatching(/truncated/),
    });
    const garbage = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41), Buffer.from('\n%%EOF\n')]);
    await expect(new PdfDecoder().decode(garbage)).rejects.toMatchObject({
      code: 'unsupported_content',
      message: expect.stringMatching(/cannot be read/),
    });
    await expect(new PdfDecoder().decode(Buffer.from('hello'))).rejects.toMatchObject({ message: expect.stringMatching(/no PDF header/) });
  });

  it('a PDF over maxPages and a file over maxFileBytes', async () => {
    const pdf = await makePdf(4, (n) => [`Page ${n}`]);
    await expect(new PdfDecoder({ maxPages: 3 }).decode(pdf)).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/4 pages.*maxPages limit \(3\)/),
    });
    await expect(new PdfDecoder({ maxFileBytes: 100 }).decode(pdf)).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/maxFileBytes limit \(100\)/),
    });
  });

  it('a zip bomb stops at maxUncompressedBytes, whatever the headers claim', async () => {
    const bomb = makeZipBomb(20 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(100_000);
    const error = await new DocxDecoder({ maxUncompressedBytes: 4 * 1024 * 1024, maxCompressionRatio: 10_000 })
      .decode(bomb)
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'content_too_large' });
    expect(reason(error)).toMatch(/maxUncompressedBytes/);
  });

  it('an archive with too many entries', async () => {
    await expect(new DocxDecoder({ maxZipEntries: 10 }).decode(makeManyEntries(50))).rejects.toMatchObject({
      message: expect.stringMatching(/maxZipEntries limit \(10\)/),
    });
  });

  it('truncated and non-zip Office files', async () => {
    const docx = makeDocx([{ text: 'Hello' }]);
    await expect(new DocxDecoder().decode(docx.subarray(0, docx.length - 30))).rejects.toMatchObject({
      message: expect.stringMatching(/truncated/),
    });
    await expect(new DocxDecoder().decode(Buffer.from('not a zip at all'))).rejects.toMatchObject({
      message: expect.stringMatching(/not a zip/),
    });
    await expect(new XlsxDecoder().decode(makeDocx([{ text: 'x' }]))).rejects.toMatchObject({
      message: expect.stringMatching(/workbook\.xml is missing/),
    });
    await expect(new PptxDecoder().decode(makeXlsx([{ name: 'a', rows: [['x']] }]))).rejects.toMatchObject({
      message: expect.stringMatching(/presentation\.xml is missing/),
    });
  });

  it('too many slides, sheets or rows', async () => {
    const deck = makePptx([
      { title: 'a', body: [] },
      { title: 'b', body: [] },
      { title: 'c', body: [] },
    ]);
    await expect(new PptxDecoder({ maxPages: 2 }).decode(deck)).rejects.toMatchObject({
      message: expect.stringMatching(/maxPages limit \(2\)/),
    });
    const book = makeXlsx([
      { name: 'a', rows: [['x'], ['1'], ['2']] },
      { name: 'b', rows: [] },
    ]);
    await expect(new XlsxDecoder({ maxSheets: 1 }).decode(book)).rejects.toMatchObject({
      message: expect.stringMatching(/maxSheets limit \(1\)/),
    });
    await expect(new XlsxDecoder({ maxRows: 2 }).decode(book)).rejects.toMatchObject({
      message: expect.stringMatching(/maxRows limit \(2\)/),
    });
    await expect(new CsvDecoder({ maxRows: 2 }).decode(Buffer.from('a\n1\n2\n3\n'))).rejects.toMatchObject({
      message: expect.stringMatching(/maxRows/),
    });
  });

  it('an aborted signal stops a decoder', async () => {
    const pdf = await makePdf(3, (n) => [`Page ${n}`]);
    const controller = new AbortController();
    controller.abort();
    await expect(new PdfDecoder().decode(pdf, { signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
  });
});
