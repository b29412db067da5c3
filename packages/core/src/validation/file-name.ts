import { InvalidInputError } from '../errors/km-error.js';
import { MAX_FILE_NAME_BYTES, MAX_PATH_SEGMENT_BYTES, DERIVED_FILE_SUFFIX_BYTES, utf8Length } from './name-limits.js';

/**
 * Longest file name accepted, in UTF-8 bytes.
 * @deprecated use {@link MAX_FILE_NAME_BYTES} (uploaded files) or {@link MAX_PATH_SEGMENT_BYTES}
 */
export const MAX_FILE_NAME_LENGTH = MAX_FILE_NAME_BYTES;

// Control characters and the characters Windows and POSIX reserve in file names.
const FORBIDDEN = /[\u0000-\u001f\u007f<>:"/\\|?*]/;

/**
 * A name the pipeline derives from an uploaded file's name (see the handlers): extracted
 * text, partitions, summaries and their embeddings. Group 1 is the uploaded file's name.
 */
const DERIVED = /^(.+)\.(?:extract\.json|extract\.txt|summary\.txt|partition\.\d+\.txt)(?:\.[a-z0-9-]+\.text_embedding)?$/s;

/** Options of {@link validateFileName}. */
export interface FileNameOptions {
  /**
   * The name of a file a caller uploads or imports, never a derived one: the whole name must
   * leave {@link DERIVED_FILE_SUFFIX_BYTES} for the names derived from it. Without it, a name
   * that looks derived (`a.pdf.partition.3.txt`) is checked through the uploaded name it
   * comes from, so content storage accepts every file the pipeline writes. @default false
   */
  uploaded?: boolean;
}

/**
 * Checks a file name: a single path segment, no `/`, `\`, control characters, not `.` or
 * `..`; an uploaded file's name at most {@link MAX_FILE_NAME_BYTES} (155) UTF-8 bytes, so
 * that its derived files (`{name}.extract.txt`, `{name}.partition.{n}.txt`, embeddings) fit
 * in the 255 bytes storage holds. Returns the name unchanged; throws `invalid_file_name`.
 *
 * ```ts
 * validateFileName('report.pdf', { uploaded: true }); // 'report.pdf'
 * ```
 */
export function validateFileName(name: unknown, options: FileNameOptions = {}): string {
  if (typeof name !== 'string' || name.trim().length === 0) {
    throw new InvalidInputError('invalid_file_name', 'file name must be a non-empty string');
  }
  if (FORBIDDEN.test(name) || name === '.' || name === '..' || name.includes('..')) {
    throw new InvalidInputError('invalid_file_name', `file name ${quote(name)} is invalid`);
  }
  const bytes = utf8Length(name);
  if (bytes > MAX_PATH_SEGMENT_BYTES) {
    throw new InvalidInputError(
      'invalid_file_name',
      `file name ${quote(name)} is ${bytes} bytes in UTF-8, over the ${MAX_PATH_SEGMENT_BYTES} bytes storage holds`,
    );
  }
  const uploaded = options.uploaded ? name : uploadedNameOf(name);
  const uploadedBytes = utf8Length(uploaded);
  if (uploadedBytes > MAX_FILE_NAME_BYTES) {
    throw new InvalidInputError(
      'invalid_file_name',
      `file name ${quote(uploaded)} is ${uploadedBytes} bytes in UTF-8, over the limit of ${MAX_FILE_NAME_BYTES} ` +
        `(${MAX_PATH_SEGMENT_BYTES} less ${DERIVED_FILE_SUFFIX_BYTES} kept for the files derived from it)`,
    );
  }
  return name;
}

/** The uploaded file's name a derived name comes from (`a.pdf.partition.3.txt` → `a.pdf`); the name itself otherwise. */
export function uploadedNameOf(name: string): string {
  return DERIVED.exec(name)?.[1] ?? name;
}

/** The last segment of a path, for naming files imported from disk. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}

function quote(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
}
