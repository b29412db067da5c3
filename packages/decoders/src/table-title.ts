/** Names km gives content it names itself (`importText`, web pages): `content.txt`, `content.csv`. */
const GENERIC_FILE_NAME = /^content\.[a-z0-9]+$/i;

/**
 * The title of a table file (a workbook, a CSV file): its own title, else its file name, unless
 * that name is one km made up. Unlike other documents, a table falls back on its file name: a
 * row without its file and sheet means little.
 */
export function tableTitle(own: string | undefined, fileName: string | undefined): string | undefined {
  const name = fileName?.trim();
  return own ?? (name && !GENERIC_FILE_NAME.test(name) ? name : undefined);
}
