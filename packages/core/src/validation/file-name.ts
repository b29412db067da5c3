import { InvalidInputError } from '../errors/km-error.js';

/** Longest file name accepted. */
export const MAX_FILE_NAME_LENGTH = 255;

// Control characters and the characters Windows and POSIX reserve in file names.
const FORBIDDEN = /[\u0000-\u001f\u007f<>:"/\\|?*]/;

/**
 * Checks a file name given by a caller: a single path segment, no `/`, `\`, control
 * characters, not `.` or `..`. Returns it unchanged; throws `invalid_file_name` otherwise.
 */
export function validateFileName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0) {
    throw new InvalidInputError('invalid_file_name', 'file name must be a non-empty string');
  }
  if (name.length > MAX_FILE_NAME_LENGTH) {
    throw new InvalidInputError('invalid_file_name', `file name is longer than ${MAX_FILE_NAME_LENGTH} characters`);
  }
  if (FORBIDDEN.test(name) || name === '.' || name === '..' || name.includes('..')) {
    throw new InvalidInputError('invalid_file_name', `file name ${JSON.stringify(name)} is invalid`);
  }
  return name;
}

/** The last segment of a path, for naming files imported from disk. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}
