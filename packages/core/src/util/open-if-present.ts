import { open, type FileHandle } from 'node:fs/promises';

/** Opens a file for reading; undefined when there is no file at `path` (any other failure throws). */
export async function openIfPresent(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
