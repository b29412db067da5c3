import { mkdir, readdir } from 'node:fs/promises';
import { isNormalizedIndexName } from '../validation/index-name.js';

/** Subfolders of `directory` whose names are normalised index names (created when missing). */
export async function listIndexFolders(directory: string): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const names: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.isDirectory() && isNormalizedIndexName(entry.name)) names.push(entry.name);
  }
  return names;
}
