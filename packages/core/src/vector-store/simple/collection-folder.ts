import { open, readdir, rename, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { InvalidInputError } from '../../errors/km-error.js';
import { isCollectionName } from '../collection-name.js';

/**
 * Whether `name` is a collection name that is safe as a folder name (core's rule, 1–128 of
 * `[A-Za-z0-9_-]` not starting with `_` or `-`, checked again here).
 */
export function isCollectionFolderName(name: string): boolean {
  return isCollectionName(name);
}

/** Throws `invalid_argument` unless `name` is a collection name (core's rule, checked again by the driver). */
export function checkCollectionName(name: string, connector: string): void {
  if (!isCollectionFolderName(name)) {
    throw new InvalidInputError(
      'invalid_argument',
      `collection name ${JSON.stringify(name)} must be 1-128 letters, digits, '_' or '-', starting with a letter or digit`,
      { connector },
    );
  }
}

/**
 * The folder of collection `name` under `directory`. Core checks collection names before a
 * driver sees them; this checks again, so no name ever reaches `join` unchecked and the folder is
 * always a direct child of `directory`.
 *
 * ```ts
 * collectionFolder('/data/vs', 'hotels', 'simple-vector-store'); // '/data/vs/hotels'
 * collectionFolder('/data/vs', '../etc', 'simple-vector-store'); // throws invalid_argument
 * ```
 */
export function collectionFolder(directory: string, name: string, connector: string): string {
  checkCollectionName(name, connector);
  const root = resolve(directory);
  const folder = resolve(root, name);
  if (dirname(folder) !== root || !folder.startsWith(root + sep)) {
    throw new InvalidInputError('invalid_argument', `collection name ${JSON.stringify(name)} does not name a folder inside ${root}`, {
      connector,
    });
  }
  return folder;
}

/** Names of the subfolders of `directory` that are collection folders holding `file` (none when `directory` is missing). */
export async function listCollectionFolders(directory: string, file: string): Promise<string[]> {
  let entries: Array<{ name: string; isDirectory(): boolean }>;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory() && isCollectionFolderName(entry.name) && (await fileExists(join(directory, entry.name, file)))) {
      names.push(entry.name);
    }
  }
  return names.sort();
}

/** Whether a file exists. */
export async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Writes a file atomically and durably: a temporary file beside it, flushed to disk, renamed
 * over it, then the folder flushed so the rename itself survives a power cut. A reader sees the
 * old content or the new one, never a mix.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp`;
  const file = await open(temp, 'w');
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
