import type { ExtractedContent } from '@km/core';
import { LimitedDecoder } from './limited-decoder.js';
import { overLimit, TextBudget } from './limits.js';
import { rowsAsText } from './rows-as-text.js';
import { tableTitle } from './table-title.js';

/**
 * CSV (and TSV): RFC 4180 quoting, the delimiter (comma, semicolon or tab) guessed from the
 * first line, a UTF-8 byte-order mark dropped. One section; each row under the header becomes
 * `column: value` lines. The title is the file name (see `tableTitle`).
 */
export class CsvDecoder extends LimitedDecoder {
  readonly name = 'csv';
  protected readonly format = 'CSV';
  protected readonly mimeTypes: ReadonlySet<string> = new Set(['text/csv', 'text/tab-separated-values', 'application/csv']);

  protected async decodeWithinLimits(data: Buffer, _signal: AbortSignal | undefined, fileName?: string): Promise<ExtractedContent> {
    const text = data.toString('utf8').replace(/^\uFEFF/, '');
    const rows = parseCsv(text, guessDelimiter(text), this.limits.maxRows, this.limits.maxCells);
    const rowsText = rowsAsText(rows, this.limits.maxTextChars, new TextBudget(this.limits.maxTextChars, this.format));
    const title = tableTitle(undefined, fileName);
    return { sections: [{ number: 1, text: rowsText, sentencesAreComplete: true }], mimeType: 'text/plain', ...(title ? { title } : {}) };
  }
}

function guessDelimiter(text: string): string {
  const firstLine = text.slice(0, text.indexOf('\n') >>> 0);
  const counts = [',', ';', '\t'].map((d) => [d, firstLine.split(d).length] as const);
  return counts.sort((a, b) => b[1] - a[1])[0]![0];
}

/** RFC 4180 rows: quoted fields may hold delimiters, newlines and doubled quotes. */
export function parseCsv(text: string, delimiter = ',', maxRows = Infinity, maxCells = Infinity): string[][] {
  const rows: string[][] = [];
  let cells = 0;
  const push = (row: string[], value: string) => {
    if (++cells > maxCells) throw overLimit('the CSV file', 'maxCells', maxCells);
    row.push(value);
  };
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) {
      push(row, field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      push(row, field);
      rows.push(row);
      if (rows.length > maxRows) throw overLimit('the CSV file', 'maxRows', maxRows);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    push(row, field);
    rows.push(row);
  }
  return rows;
}
