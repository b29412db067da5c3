import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { CsvDecoder, DocxDecoder, PptxDecoder, rowsAsText, XlsxDecoder } from '../src/index.js';
import { makeDocx } from './fixtures/ooxml-fixtures.js';

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const rels = (entries: Array<[string, string, string]>) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${entries.map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`).join('')}</Relationships>`;
const zip = (files: Record<string, string>) =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])), { level: 6 }));

/** An .xlsx whose sheets (all pointing at the same worksheet when `sheets` > 1) hold `sheetData`. */
function xlsx(sheetData: string, options: { sheets?: number; shared?: string[] } = {}): Buffer {
  const sheets = options.sheets ?? 1;
  return zip({
    '_rels/.rels': rels([['rId1', 'officeDocument', 'xl/workbook.xml']]),
    'xl/workbook.xml': `${XML}<workbook xmlns:r="${REL}"><sheets>${Array.from({ length: sheets }, (_, i) => `<sheet name="S${i + 1}" sheetId="${i + 1}" r:id="rId1"/>`).join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': rels([['rId1', 'worksheet', 'worksheets/sheet1.xml']]),
    'xl/worksheets/sheet1.xml': `${XML}<worksheet><sheetData>${sheetData}</sheetData></worksheet>`,
    'xl/sharedStrings.xml': `${XML}<sst>${(options.shared ?? []).map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`,
  });
}

describe('spreadsheets are read sparsely, under maxCells and maxTextChars', () => {
  it('30 000 rows of one cell at column XFD (~1 MB of XML) decode to bounded text, without 16 384 slots a row', async () => {
    const sheetData = Array.from({ length: 30_000 }, (_, r) => `<row><c r="XFD${r + 1}"><v>${r}</v></c></row>`).join('');
    expect(sheetData.length).toBeGreaterThan(1_000_000);
    const file = xlsx(sheetData);
    expect(file.length).toBeLessThan(200_000);
    const { sections } = await new XlsxDecoder().decode(file);
    const text = sections[0]!.text;
    // Row 1 is the header (its XFD cell names the column "0"); the others are one line each.
    expect(text.split('\n\n')).toHaveLength(30_000);
    expect(text).toContain('\n\n0: 29999');
    expect(text.length).toBeLessThan(400_000);
  });

  it('a workbook over maxCells fails with content_too_large naming the limit', async () => {
    const sheetData = Array.from(
      { length: 300 },
      (_, r) => `<row>${Array.from({ length: 10 }, (_, c) => `<c><v>${r * c}</v></c>`).join('')}</row>`,
    ).join('');
    await expect(new XlsxDecoder({ maxCells: 2_000 }).decode(xlsx(sheetData))).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/maxCells limit \(2000\)/),
    });
    await expect(new XlsxDecoder({ maxCells: 3_000 }).decode(xlsx(sheetData))).resolves.toMatchObject({ sections: [{ number: 1 }] });
  });

  it('one long shared string in many cells fails on maxTextChars (default 32 M characters) before the text is built', async () => {
    const long = 'word '.repeat(20_000); // 100 000 characters
    const sheetData = `<row><c t="inlineStr"><is><t>Header</t></is></c></row>${Array.from({ length: 400 }, () => `<row><c t="s"><v>0</v></c></row>`).join('')}`;
    const error = await new XlsxDecoder().decode(xlsx(sheetData, { shared: [long] })).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/text of the Excel file.*maxTextChars limit \(32000000\)/),
    });
  });

  it('a sheet listed many times counts its text every time', async () => {
    const sheetData = `<row><c t="inlineStr"><is><t>k</t></is></c></row>${Array.from({ length: 200 }, (_, r) => `<row><c><v>${r}</v></c></row>`).join('')}`;
    const file = xlsx(sheetData, { sheets: 50 });
    await expect(new XlsxDecoder().decode(file)).resolves.toMatchObject({ sections: expect.any(Array) });
    await expect(new XlsxDecoder({ maxTextChars: 10_000 }).decode(file)).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/maxTextChars limit \(10000\)/),
    });
  });

  it('rowsAsText and CSV: a field count over maxCells, text over maxTextChars', async () => {
    expect(() => rowsAsText([['h'], ...Array.from({ length: 100 }, () => ['x'.repeat(100)])], 1000)).toThrow(/maxTextChars limit \(1000\)/);
    const csv = Buffer.from(`a,b\n${'1,2\n'.repeat(1000)}`);
    await expect(new CsvDecoder({ maxCells: 500 }).decode(csv)).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/maxCells limit \(500\)/),
    });
    await expect(new CsvDecoder({ maxTextChars: 500 }).decode(csv)).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/text of the CSV file.*maxTextChars/),
    });
    await expect(new CsvDecoder().decode(csv)).resolves.toMatchObject({ sections: [{ number: 1 }] });
  });
});

describe('Word and PowerPoint text is counted against maxTextChars', () => {
  it('a Word table padded to its widest row fails before the padding is built', async () => {
    const wide = Array.from({ length: 2_000 }, (_, i) => `c${i}`);
    const rows = [wide, ...Array.from({ length: 2_000 }, (_, r) => [`r${r}`])]; // ~12 M characters once padded
    const docx = makeDocx([rows]);
    expect(docx.length).toBeLessThan(200_000);
    const error = await new DocxDecoder({ maxTextChars: 1_000_000 }).decode(docx).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/text of the Word file.*maxTextChars limit \(1000000\)/),
    });
  });

  it('one slide listed many times counts its text every time', async () => {
    const slides = 50;
    const body = Array.from({ length: 2_000 }, (_, i) => `<a:p><a:r><a:t>Line ${i} of the one slide</a:t></a:r></a:p>`).join('');
    const pptx = zip({
      '_rels/.rels': rels([['rId1', 'officeDocument', 'ppt/presentation.xml']]),
      'ppt/presentation.xml': `${XML}<p:presentation xmlns:p="p" xmlns:r="${REL}"><p:sldIdLst>${Array.from({ length: slides }, (_, i) => `<p:sldId id="${256 + i}" r:id="rId1"/>`).join('')}</p:sldIdLst></p:presentation>`,
      'ppt/_rels/presentation.xml.rels': rels([['rId1', 'slide', 'slides/slide1.xml']]),
      'ppt/slides/slide1.xml': `${XML}<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree><p:sp><p:txBody>${body}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
    });
    await expect(new PptxDecoder().decode(pptx)).resolves.toMatchObject({ sections: expect.any(Array) });
    await expect(new PptxDecoder({ maxTextChars: 1_000_000 }).decode(pptx)).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/text of the PowerPoint file.*maxTextChars limit \(1000000\)/),
    });
  });
});
