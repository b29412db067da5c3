/** Rows of cells as a markdown table; the first row is the header. */
export function markdownTable(rows: string[][]): string {
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (width === 0) return '';
  const cell = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i])).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head!), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}
