import { mkdir, readdir } from 'node:fs/promises';
import { normalizeIndexName } from '../validation/index-name.js';

/** Subfolders of `directory` whose names are normalised index names (created when missing). */
export async function listIndexFolders(directory: string): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const names: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.isDirectory() && isNormalizedIndexName(entry.name)) names.push(entry.name);
  }
  return names;
}

function isNormalizedIndexName(name: string): boolean {
  try {
    return normalizeIndexName(name) === name;
  } catch {
    return false;
  }
}

/** The number of results a search returns: `limit` when positive, else the store's maximum. */
export function searchLimit(limit: number | undefined, maximum: number): number {
  return limit !== undefined && limit > 0 ? limit : maximum;
}
