import { HashingEmbeddingGenerator, KernelMemoryBuilder, PayloadFields, SimpleVectorDb, silentLogger, type MemoryRecord } from '@km/core';
import { describe, expect, it } from 'vitest';
import { createDecoders, CsvDecoder, DocxDecoder, PdfDecoder, PptxDecoder, XlsxDecoder } from '../src/index.js';
import { makeDocx, makePptx, makeXlsx } from './fixtures/ooxml-fixtures.js';
import { makeLaidOutPdf, type PdfFixtureLine } from './fixtures/pdf-fixtures.js';

function memory(maxTokensPerChunk = 1000) {
  const db = new SimpleVectorDb();
  const builder = new KernelMemoryBuilder()
    .withLogger(silentLogger)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withMemoryDb(db)
    .withPartitionOptions({ maxTokensPerChunk, overlapTokens: 0 });
  for (const decoder of createDecoders({ ocr: false })) builder.withDecoder(decoder);
  return { km: builder.build(), db };
}

async function records(db: SimpleVectorDb): Promise<MemoryRecord[]> {
  const out: MemoryRecord[] = [];
  for await (const r of db.getList('default', { limit: 0 })) out.push(r);
  return out.sort((a, b) => Number(a.tags.__part_n![0]) - Number(b.tags.__part_n![0]));
}

const TOPICS = ['fire exits', 'first aid kits', 'chemical storage', 'ladder safety', 'noise protection'];

/** A 5-page manual: a running header, a page footer, a heading on pages 1 and 3, body lines. */
function manualPage(n: number): PdfFixtureLine[] {
  const lines: PdfFixtureLine[] = [{ text: 'ACME Corp - Confidential', y: 770, size: 9 }];
  let y = 720;
  if (n === 1 || n === 3) {
    lines.push({ text: n === 1 ? 'General rules' : 'Storage rules', y, size: 18 });
    y -= 30;
  }
  for (let i = 0; i < 3; i++, y -= 16) lines.push({ text: `Rule ${n}.${i}: mind the ${TOPICS[n - 1]} every day.`, y });
  lines.push({ text: `Page ${n} of 5`, y: 30, size: 9, x: 280 });
  return lines;
}

describe('PdfDecoder: headers, footers and headings', () => {
  it('removes a running header and page numbers from every page and keeps the rest', async () => {
    const { sections, mimeType, title } = await new PdfDecoder().decode(await makeLaidOutPdf(5, manualPage, 'Safety manual'));
    expect(mimeType).toBe('text/markdown');
    expect(title).toBe('Safety manual');
    expect(sections.map((s) => s.number)).toEqual([1, 2, 3, 4, 5]);
    for (const s of sections) {
      expect(s.text).not.toMatch(/Confidential|Page \d of 5/);
      expect(s.text).toContain(`mind the ${TOPICS[s.number - 1]} every day.`);
    }
    expect(sections[1]!.text).toBe([0, 1, 2].map((i) => `Rule 2.${i}: mind the first aid kits every day.`).join('\n'));
  });

  it('keeps a line repeated on only two pages, or away from the page edges', async () => {
    const pdf = await makeLaidOutPdf(4, (n) => [
      { text: n <= 2 ? 'Draft' : `Final ${n}`, y: 770 },
      { text: `The ${TOPICS[n - 1]} start here.`, y: 700 },
      { text: 'Keep this repeated middle line', y: 600 },
      { text: `The ${TOPICS[n - 1]} go on.`, y: 500 },
      { text: `The ${TOPICS[n - 1]} end here.`, y: 400 },
    ]);
    const { sections } = await new PdfDecoder().decode(pdf);
    expect(sections[0]!.text.split('\n')).toEqual([
      'Draft',
      'The fire exits start here.',
      'Keep this repeated middle line',
      'The fire exits go on.',
      'The fire exits end here.',
    ]);
    expect(sections[3]!.text).toContain('Keep this repeated middle line');
  });

  it('turns lines in a clearly larger font into markdown headings, not a larger sentence', async () => {
    const pdf = await makeLaidOutPdf(2, (n) => [
      { text: n === 1 ? 'Introduction' : 'This large line is a sentence.', y: 720, size: 20 },
      { text: 'Scope', y: 690, size: 14 },
      { text: `Body text of page ${n} explains the scope of the rules.`, y: 660 },
      { text: 'It continues on a second line of body text.', y: 644 },
    ]);
    const { sections } = await new PdfDecoder().decode(pdf);
    expect(sections[0]!.text).toBe(
      '# Introduction\n\n## Scope\n\nBody text of page 1 explains the scope of the rules.\nIt continues on a second line of body text.',
    );
    expect(sections[1]!.text.startsWith('This large line is a sentence.\n\n## Scope\n\n')).toBe(true);
  });

  it('in the pipeline: citations keep their page, chunks carry Title › Heading, no header or footer is indexed', async () => {
    const { km, db } = memory(60);
    await km.importDocument({ name: 'manual.pdf', data: await makeLaidOutPdf(5, manualPage, 'Safety manual') }, { documentId: 'manual' });
    const hit = (await km.search('ladder safety rule', { limit: 1 })).results[0]!;
    expect(hit.partitions[0]!.sectionNumber).toBe(4);
    const all = await records(db);
    expect(all.every((r) => !/Confidential|of 5/.test(String(r.payload.text)))).toBe(true);
    const page4 = all.find((r) => r.tags.__sect_n![0] === '4')!;
    expect(page4.payload[PayloadFields.context]).toBe('Safety manual › Storage rules');
    expect(String(page4.payload.text).startsWith('Safety manual › Storage rules\n\nRule 4.0')).toBe(true);
  });
});

describe('Office titles', () => {
  it('Word: dc:title, else a first paragraph styled Title', async () => {
    const body = [{ text: 'Leave policy', style: 'Title' }, { text: 'Ten days a year.' }];
    expect((await new DocxDecoder().decode(makeDocx(body))).title).toBe('Leave policy');
    expect((await new DocxDecoder().decode(makeDocx(body, undefined, { title: 'HR handbook' }))).title).toBe('HR handbook');
    expect((await new DocxDecoder().decode(makeDocx([{ text: 'Ten days a year.' }]))).title).toBeUndefined();
  });

  it('PowerPoint: dc:title', async () => {
    const deck = makePptx([{ title: 'Roadmap', body: ['Ship it'] }], { title: 'Q3 review' });
    expect((await new PptxDecoder().decode(deck)).title).toBe('Q3 review');
  });

  it('Excel and CSV: their title, else the file name unless km made it up', async () => {
    const sheet = [{ name: 'Capitals', rows: [['Country'], ['France']] }];
    expect((await new XlsxDecoder().decode(makeXlsx(sheet), { fileName: 'countries.xlsx' })).title).toBe('countries.xlsx');
    expect((await new XlsxDecoder().decode(makeXlsx(sheet, { title: 'World atlas' }), { fileName: 'countries.xlsx' })).title).toBe(
      'World atlas',
    );
    const csv = Buffer.from('name,age\nBob,3\n');
    expect((await new CsvDecoder().decode(csv, { fileName: 'people.csv' })).title).toBe('people.csv');
    expect((await new CsvDecoder().decode(csv, { fileName: 'content.csv' })).title).toBeUndefined();
  });
});

describe('spreadsheet rows in the pipeline', () => {
  it('a chunk of rows after the sheet heading still names the workbook and the sheet', async () => {
    const countries = Array.from({ length: 40 }, (_, i) => [`Country ${i}`, `Capital city number ${i}`]);
    const xlsx = makeXlsx([
      { name: 'Notes', rows: [['Note'], ['Capitals as of 2024']] },
      { name: 'Capitals', rows: [['Country', 'Capital'], ...countries] },
    ]);
    const { km, db } = memory(80);
    await km.importDocument({ name: 'countries.xlsx', data: xlsx }, { documentId: 'atlas' });
    const capitals = (await records(db)).filter((r) => r.tags.__sect_n![0] === '2');
    expect(capitals.length).toBeGreaterThan(2);
    expect(capitals[0]!.payload[PayloadFields.context]).toBe('countries.xlsx');
    expect(String(capitals[0]!.payload.text).startsWith('countries.xlsx\n\n## Sheet: Capitals\n\n')).toBe(true);
    for (const r of capitals.slice(1)) {
      expect(r.payload[PayloadFields.context]).toBe('countries.xlsx › Sheet: Capitals');
      expect(String(r.payload.text)).toMatch(/^countries\.xlsx › Sheet: Capitals\n\nCountry: Country \d+\nCapital: /);
    }
  });
});
