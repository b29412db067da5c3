import type { ContentSection, ExtractedContent, IContentDecoder } from '@km/core';
import { checkAborted, checkFileSize, DEFAULT_LIMITS, overLimit, unreadable, type DecoderLimits } from './limits.js';
import { readRelationships, relsPathOf } from './ooxml/relationships.js';
import { readXml, type XmlSource } from './ooxml/xml.js';
import { rowsAsText } from './rows-as-text.js';
import { readZipParts } from './zip/safe-unzip.js';

export const XLSX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const WORKBOOK = 'xl/workbook.xml';

/**
 * Excel (.xlsx): one section per sheet, in workbook order, headed by the sheet name; each row
 * under the header row becomes `column: value` lines. Values are the cached results Excel
 * saved (formulas are not recomputed); dates stay Excel serial numbers.
 */
export class XlsxDecoder implements IContentDecoder {
  readonly name = 'xlsx';
  private readonly limits: DecoderLimits;

  constructor(limits: Partial<DecoderLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  supportsMimeType(mimeType: string): boolean {
    return mimeType === XLSX_MIME_TYPE;
  }

  async decode(data: Buffer, options: { signal?: AbortSignal } = {}): Promise<ExtractedContent> {
    checkFileSize(data, this.limits, 'Excel');
    const parts = readZipParts(data, (name) => name.startsWith('xl/') && (name.endsWith('.xml') || name.endsWith('.rels')), this.limits, 'Excel', options.signal);
    const workbook = parts.get(WORKBOOK);
    if (!workbook) throw unreadable('Excel', `${WORKBOOK} is missing`);
    const rels = readRelationships(parts.get(relsPathOf(WORKBOOK)), WORKBOOK);
    const sheets: Array<{ name: string; id: string }> = [];
    readXml(workbook, {
      open(name, a) {
        if (name === 'sheet' && a['r:id']) sheets.push({ name: a.name ?? `Sheet${sheets.length + 1}`, id: a['r:id'] });
      },
    });
    if (sheets.length > this.limits.maxSheets) throw overLimit(`the workbook (${sheets.length} sheets)`, 'maxSheets', this.limits.maxSheets);
    const shared = sharedStrings(parts.get('xl/sharedStrings.xml'));
    const sections: ContentSection[] = [];
    sheets.forEach((sheet, i) => {
      checkAborted(options.signal);
      const path = rels.get(sheet.id)?.target;
      const xml = path ? parts.get(path) : undefined;
      if (!xml) return;
      const rows = sheetRows(xml, shared, this.limits.maxRows, sheet.name);
      const text = rowsAsText(rows);
      sections.push({ number: i + 1, text: `## Sheet: ${sheet.name}${text ? `\n\n${text}` : ''}`, sentencesAreComplete: true });
    });
    return { sections, mimeType: 'text/markdown' };
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

function sheetRows(xml: XmlSource, shared: string[], maxRows: number, sheet: string): string[][] {
  const rows: string[][] = [];
  let row: string[] | undefined;
  let type = '';
  let column = 0;
  let value = '';
  let capture = false;
  readXml(xml, {
    open(name, a) {
      if (name === 'row') {
        if (rows.length >= maxRows) throw overLimit(`sheet "${sheet}"`, 'maxRows', maxRows);
        row = [];
      } else if (name === 'c' && row) {
        type = a.t ?? 'n';
        column = a.r ? columnIndex(a.r.toUpperCase()) : row.length;
        value = '';
      } else if (name === 'v' || name === 't') capture = true;
    },
    text(text) {
      if (capture) value += text;
    },
    close(name) {
      if (name === 'v' || name === 't') capture = false;
      else if (name === 'c' && row && column >= 0 && column < 16_384) {
        const text = type === 's' ? (shared[Number(value)] ?? '') : type === 'b' ? (value === '1' ? 'TRUE' : 'FALSE') : value;
        while (row.length < column) row.push('');
        row[column] = text;
      } else if (name === 'row' && row) {
        rows.push(row);
        row = undefined;
      }
    },
  });
  return rows;
}
