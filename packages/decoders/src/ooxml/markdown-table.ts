import type { TextBudget } from '../limits.js';

/**
 * Rows of cells as a markdown table; the first row is the header. Every line has the width of
 * the widest row, so each is counted against the budget before it is built.
 */
export function markdownTable(rows: string[][], budget?: TextBudget): string {
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (width === 0) return '';
  const cell = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
  const line = (r: string[]) => {
    budget?.take(width * 3 + 2 + r.reduce((n, c) => n + c.length * 2, 0));
    return `| ${Array.from({ length: width }, (_, i) => cell(r[i])).join(' | ')} |`;
  };
  const [head, ...body] = rows;
  const lines = [line(head!)];
  budget?.take(width * 6 + 2);
  lines.push(`|${' --- |'.repeat(width)}`);
  for (const r of body) lines.push(line(r));
  return lines.join('\n');
}
