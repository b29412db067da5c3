import type { ContentSection, ExtractedContent } from '@km/core';
import { LimitedDecoder } from './limited-decoder.js';
import { checkAborted, overLimit, TextBudget } from './limits.js';
import { OfficePackage, type OfficeParts } from './ooxml/office-package.js';
import { readXml, type XmlSource } from './ooxml/xml.js';
import { RowsTextWriter, type SparseRow } from './rows-as-text.js';
import { tableTitle } from './table-title.js';

export const XLSX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const WORKBOOK = 'xl/workbook.xml';
/** The parts of an Excel file read: every XML part and relationship under `xl/`. */
const EXCEL_PARTS: OfficeParts = {
  mainPart: WORKBOOK,
  wanted: (name) => name.startsWith('xl/') && (name.endsWith('.xml') || name.endsWith('.rels')),
};

/**
 * Excel (.xlsx): one section per sheet, in workbook order, headed by the sheet name; each row
 * under the header row becomes `column: value` lines. Values are the cached results Excel
 * saved (formulas are not recomputed); dates stay Excel serial numbers. Rows are read sparsely
 * (a cell at column XFD costs one entry, not 16 384) and written out one at a time, under the
 * `maxCells` and `maxTextChars` limits. The title is the core properties' `dc:title`, else the
 * file name (see `tableTitle`), so a chunk of rows says which workbook and sheet it is from.
 */
export class XlsxDecoder extends LimitedDecoder {
  readonly name = 'xlsx';
  protected readonly format = 'Excel';
  protected readonly mimeTypes: ReadonlySet<string> = new Set([XLSX_MIME_TYPE]);

  protected async decodeWithinLimits(data: Buffer, signal: AbortSignal | undefined, fileName?: string): Promise<ExtractedContent> {
    const workbook = new OfficePackage(data, EXCEL_PARTS, this.limits, this.format, signal);
    const sheets = workbook.listed('sheet', (id, a, index) => ({ name: a.name ?? `Sheet${index + 1}`, id }));
    if (sheets.length > this.limits.maxSheets)
      throw overLimit(`the workbook (${sheets.length} sheets)`, 'maxSheets', this.limits.maxSheets);
    const shared = sharedStrings(workbook.parts.get('xl/sharedStrings.xml'));
    const budget = new TextBudget(this.limits.maxTextChars, this.format);
    const cells = { count: 0 };
    const sections: ContentSection[] = [];
    sheets.forEach((sheet, i) => {
      checkAborted(signal);
      const xml = workbook.target(sheet.id)?.xml;
      if (!xml) return;
      const heading = `## Sheet: ${sheet.name}`;
      budget.take(heading.length + 2);
      const writer = new RowsTextWriter(budget);
      readSheet(xml, shared, { ...this.limits, sheet: sheet.name, cells }, (row) => writer.add(row));
      const text = writer.text();
      sections.push({ number: i + 1, text: `${heading}${text ? `\n\n${text}` : ''}`, sentencesAreComplete: true });
    });
    const title = tableTitle(workbook.title, fileName);
    return { sections, mimeType: 'text/markdown', ...(title ? { title } : {}) };
  }
}

function sharedStrings(xml: XmlSource | undefined): string[] {
  const strings: string[] = [];
  if (!xml) return strings;
  let current = '';
  let inText = false;
  let phonetic = 0;
  readXml(xml, {
    open(name) {
      if (name === 'si') current = '';
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && phonetic === 0) inText = true;
    },
    text(text) {
      if (inText) current += text;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') strings.push(current);
    },
  });
  return strings;
}

/** Column index (0-based) of a cell reference such as `AB12`. */
function columnIndex(reference: string): number {
  let index = 0;
  for (const ch of reference) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) break;
    index = index * 26 + (code - 64);
  }
  return index - 1;
}

/** Columns of a sheet: A to XFD. */
const MAX_COLUMNS = 16_384;

interface SheetLimits {
  maxRows: number;
  maxCells: number;
  sheet: string;
  /** Cells read so far in the workbook, shared by its sheets. */
  cells: { count: number };
}

/** Streams the rows of a sheet to `onRow` as sparse rows (non-empty cells only), one at a time. */
function readSheet(xml: XmlSource, shared: string[], limits: SheetLimits, onRow: (row: SparseRow) => void): void {
  let rows = 0;
  let row: SparseRow | undefined;
  let nextColumn = 0;
  let type = '';
  let column = 0;
  let value = '';
  let capture = false;
  readXml(xml, {
    open(name, a) {
      if (name === 'row') {
        if (rows >= limits.maxRows) throw overLimit(`sheet "${limits.sheet}"`, 'maxRows', limits.maxRows);
        rows++;
        row = new Map();
        nextColumn = 0;
      } else if (name === 'c' && row) {
        if (++limits.cells.count > limits.maxCells)
          throw overLimit(`the workbook (at sheet "${limits.sheet}")`, 'maxCells', limits.maxCells);
        type = a.t ?? 'n';
        column = a.r ? columnIndex(a.r.toUpperCase()) : nextColumn;
        nextColumn = column + 1;
        value = '';
      } else if (name === 'v' || name === 't') capture = true;
    },
    text(text) {
      if (capture) value += text;
    },
    close(name) {
      if (name === 'v' || name === 't') capture = false;
      else if (name === 'c' && row && column >= 0 && column < MAX_COLUMNS) {
        const text = type === 's' ? (shared[Number(value)] ?? '') : type === 'b' ? (value === '1' ? 'TRUE' : 'FALSE') : value;
        if (text.trim() !== '') row.set(column, text);
        else row.delete(column);
      } else if (name === 'row' && row) {
        onRow(row);
        row = undefined;
      }
    },
  });
}
