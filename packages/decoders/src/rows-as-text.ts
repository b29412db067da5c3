/** A column's name: its header, or its letter (A, B, ..., AA) when the header is empty. */
export function columnName(headers: string[], index: number): string {
  const header = headers[index]?.trim();
  if (header) return header;
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/**
 * Rows of a table as text that stays readable after chunking: the first non-empty row is the
 * header, and every later row becomes `column: value` lines (empty cells left out), rows
 * separated by a blank line.
 */
export function rowsAsText(rows: string[][]): string {
  const nonEmpty = rows.filter((r) => r.some((c) => c.trim() !== ''));
  if (nonEmpty.length === 0) return '';
  const [headers, ...data] = nonEmpty as [string[], ...string[][]];
  if (data.length === 0) return headers.filter((h) => h.trim()).join(', ');
  return data
    .map((row) =>
      row
        .map((value, i) => (value.trim() === '' ? undefined : `${columnName(headers, i)}: ${value.trim()}`))
        .filter((line): line is string => line !== undefined)
        .join('\n'),
    )
    .filter((block) => block !== '')
    .join('\n\n');
}
