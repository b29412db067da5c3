import { type FileHandle, open } from 'node:fs/promises';

/** Opens a file for reading; undefined when there is no file at `path` (any other failure throws). */
export async function openIfPresent(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Orders record ids by UTF-16 code units (as km lists them). */
export function compareRecordIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** L2 norm of a vector. */
export function l2norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

/** The payload field that holds a record's text (km's `payload.text`), what a text view indexes. */
export const TEXT_FIELD = 'text';

/** The text of a stored payload (`payload.text`), or '' when it has none. */
export function partitionText(payloadJson: string): string {
  const text = (JSON.parse(payloadJson) as Record<string, unknown>)[TEXT_FIELD];
  return typeof text === 'string' ? text : '';
}
