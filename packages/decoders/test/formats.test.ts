import { describe, expect, it } from 'vitest';
import { CsvDecoder, DocxDecoder, parseCsv, PdfDecoder, PptxDecoder, XlsxDecoder } from '../src/index.js';
import { makeDocx, makePptx, makeXlsx } from './fixtures/ooxml-fixtures.js';
import { makePdf } from './fixtures/pdf-fixtures.js';

describe('PdfDecoder', () => {
  it('gives one section per page, numbered as the page', async () => {
    const pdf = await makePdf(3, (n) => [`Page ${n} is about topic number ${n}.`, `It has a second line on page ${n}.`]);
    const { sections } = await new PdfDecoder().decode(pdf);
    expect(sections.map((s) => s.number)).toEqual([1, 2, 3]);
    expect(sections[1]!.text).toBe('Page 2 is about topic number 2.\nIt has a second line on page 2.');
  });

  it('skips pages without text but keeps the numbers of the others', async () => {
    const pdf = await makePdf(3, (n) => (n === 2 ? [] : [`Text on page ${n}.`]));
    const { sections } = await new PdfDecoder().decode(pdf);
    expect(sections.map((s) => s.number)).toEqual([1, 3]);
  });
});

describe('DocxDecoder', () => {
  it('keeps headings, lists and tables as markdown', async () => {
    const docx = makeDocx([
      { text: 'Quarterly report', heading: 1 },
      { text: 'Revenue grew in every region.' },
      { text: 'Details', heading: 2 },
      { text: 'North grew fastest', list: true },
      [
        ['Region', 'Revenue'],
        ['North', '120'],
        ['South | West', '80'],
      ],
    ]);
    const { sections, mimeType } = await new DocxDecoder().decode(docx);
    expect(mimeType).toBe('text/markdown');
    expect(sections).toHaveLength(1);
    expect(sections[0]!.text).toBe(
      [
        '# Quarterly report',
        'Revenue grew in every region.',
        '## Details',
        '- North grew fastest',
        '| Region | Revenue |\n| --- | --- |\n| North | 120 |\n| South \\| West | 80 |',
      ].join('\n\n'),
    );
  });

  it('starts a new section at each page break', async () => {
    const docx = makeDocx([{ text: 'First page.' }, { text: 'Second page.', pageBreakBefore: true }, { text: 'Still second.' }]);
    const { sections } = await new DocxDecoder().decode(docx);
    expect(sections.map((s) => [s.number, s.text])).toEqual([
      [1, 'First page.'],
      [2, 'Second page.\n\nStill second.'],
    ]);
  });
});

describe('PptxDecoder', () => {
  it('gives one section per slide with its title, text and speaker notes', async () => {
    const pptx = makePptx([
      { title: 'Roadmap', body: ['Ship the service', 'Add connectors'], notes: 'Mention the beta date.' },
      { title: 'Risks', body: ['Hiring'] },
    ]);
    const { sections } = await new PptxDecoder().decode(pptx);
    expect(sections).toEqual([
      {
        number: 1,
        text: '## Slide 1: Roadmap\nShip the service\nAdd connectors\n\nSpeaker notes: Mention the beta date.',
        sentencesAreComplete: true,
      },
      { number: 2, text: '## Slide 2: Risks\nHiring', sentencesAreComplete: true },
    ]);
  });
});

describe('XlsxDecoder and CsvDecoder', () => {
  it('gives one section per sheet, rows as column: value lines', async () => {
    const xlsx = makeXlsx([
      {
        name: 'Cities',
        rows: [
          ['City', 'Country', 'Population'],
          ['Rome', 'Italy', 2873000],
          ['Tokyo', '', 13960000],
        ],
      },
      {
        name: 'Flags',
        rows: [
          ['Name', 'Active'],
          ['alpha', true],
        ],
      },
    ]);
    const { sections } = await new XlsxDecoder().decode(xlsx);
    expect(sections.map((s) => s.number)).toEqual([1, 2]);
    expect(sections[0]!.text).toBe(
      '## Sheet: Cities\n\nCity: Rome\nCountry: Italy\nPopulation: 2873000\n\nCity: Tokyo\nPopulation: 13960000',
    );
    expect(sections[1]!.text).toBe('## Sheet: Flags\n\nName: alpha\nActive: TRUE');
  });

  it('reads CSV with quotes, embedded delimiters and newlines, and other delimiters', async () => {
    const csv = '\uFEFFname,notes\r\n"Smith, Jane","said ""hi""\nthen left"\r\nBob,\r\n';
    const { sections } = await new CsvDecoder().decode(Buffer.from(csv));
    expect(sections[0]!.text).toBe('name: Smith, Jane\nnotes: said "hi"\nthen left\n\nname: Bob');
    expect(parseCsv('a;b\n1;2', ';')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    const { sections: tsv } = await new CsvDecoder().decode(Buffer.from('k\tv\nx\ty\n'));
    expect(tsv[0]!.text).toBe('k: x\nv: y');
  });
});
