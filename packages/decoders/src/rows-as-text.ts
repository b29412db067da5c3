import { DEFAULT_LIMITS, TextBudget } from './limits.js';

/** A row as its non-empty cells only: column index (0-based) → value. Empty cells are never stored. */
export type SparseRow = Map<number, string>;

/** A column's name: its header, or its letter (A, B, ..., AA) when the header is empty. */
export function columnName(header: string | undefined, index: number): string {
  const name = header?.trim();
  if (name) return name;
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/**
 * Rows of a table as text that stays readable after chunking, built row by row (no row is kept
 * once written): the first non-empty row is the header, and every later row becomes
 * `column: value` lines (empty cells left out), rows separated by a blank line. Each line is
 * counted against the budget before it is built.
 */
export class RowsTextWriter {
  private headers: SparseRow | undefined;
  private readonly blocks: string[] = [];

  constructor(private readonly budget: TextBudget) {}

  /** Adds a row (cells in any order; empty values are skipped). */
  add(row: SparseRow): void {
    const columns = [...row.keys()].filter((i) => row.get(i)!.trim() !== '').sort((a, b) => a - b);
    if (columns.length === 0) return;
    if (!this.headers) {
      this.headers = row;
      return;
    }
    const lines: string[] = [];
    for (const i of columns) {
      const name = columnName(this.headers.get(i), i);
      const value = row.get(i)!.trim();
      this.budget.take(name.length + value.length + 3);
      lines.push(`${name}: ${value}`);
    }
    this.budget.take(2);
    this.blocks.push(lines.join('\n'));
  }

  /** The text of the rows added: blocks of `column: value` lines, or only the header's names. */
  text(): string {
    if (!this.headers) return '';
    if (this.blocks.length > 0) return this.blocks.join('\n\n');
    const names = [...this.headers.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, h]) => h)
      .filter((h) => h.trim());
    this.budget.take(names.reduce((n, h) => n + h.length + 2, 0));
    return names.join(', ');
  }
}

/** Dense rows (`string[]`, empty strings for empty cells) as a {@link SparseRow}. */
export function sparseRow(row: string[]): SparseRow {
  const sparse: SparseRow = new Map();
  row.forEach((value, i) => {
    if (value.trim() !== '') sparse.set(i, value);
  });
  return sparse;
}

/**
 * Rows of a table as text (see {@link RowsTextWriter}); more than `maxTextChars` characters fail
 * with `content_too_large`.
 */
export function rowsAsText(
  rows: string[][],
  maxTextChars = DEFAULT_LIMITS.maxTextChars,
  budget = new TextBudget(maxTextChars, 'table'),
): string {
  const writer = new RowsTextWriter(budget);
  for (const row of rows) writer.add(sparseRow(row));
  return writer.text();
}
