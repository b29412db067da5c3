import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { InvalidInputError, MAX_DOCUMENT_ID_LENGTH } from '@km/core';

/** One thing to import: a file or a web page, with the document id it gets. */
export type ImportItem = { kind: 'file'; path: string; documentId: string } | { kind: 'url'; url: string; documentId: string };

/**
 * Expands the command's arguments: files as they are, folders recursively (hidden entries
 * skipped), `http(s)://` arguments as web pages. Ids are derived from the path under the
 * folder (or the file name), so importing the same tree again replaces its documents.
 */
export async function expandInputs(inputs: readonly string[]): Promise<ImportItem[]> {
  const items: ImportItem[] = [];
  for (const input of inputs) {
    if (/^https?:\/\//i.test(input)) {
      items.push({ kind: 'url', url: input, documentId: toDocumentId(new URL(input).host + new URL(input).pathname) });
      continue;
    }
    const path = resolve(input);
    const info = await stat(path).catch(() => {
      throw new InvalidInputError('invalid_argument', `${input}: no such file or folder`);
    });
    if (info.isDirectory()) {
      for (const file of await walk(path)) items.push({ kind: 'file', path: file, documentId: toDocumentId(relative(path, file)) });
    } else if (info.isFile()) {
      items.push({ kind: 'file', path, documentId: toDocumentId(basename(path)) });
    }
  }
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.documentId))
      throw new InvalidInputError('invalid_argument', `two inputs map to the document id "${item.documentId}"; import them separately`);
    seen.add(item.documentId);
  }
  return items;
}

async function walk(folder: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** A valid document id from a path: other characters become `_`, `..` cannot survive. */
export function toDocumentId(path: string): string {
  const id = path
    .replace(/[\\/]+/g, '__')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^\.+/, '')
    .slice(0, MAX_DOCUMENT_ID_LENGTH);
  return id || 'document';
}
