import { InvalidInputError } from '../errors/km-error.js';
import { INTERNAL_FILE_PREFIX, isInternalFileName, withoutInternalPrefix } from '../pipeline/internal-file-names.js';
import { MAX_FILE_NAME_BYTES, MAX_PATH_SEGMENT_BYTES, DERIVED_FILE_SUFFIX_BYTES, utf8Length } from './name-limits.js';

/**
 * Longest file name accepted, in UTF-8 bytes.
 * @deprecated use {@link MAX_FILE_NAME_BYTES} (uploaded files) or {@link MAX_PATH_SEGMENT_BYTES}
 */
export const MAX_FILE_NAME_LENGTH = MAX_FILE_NAME_BYTES;

// Control characters and the characters Windows and POSIX reserve in file names.
const FORBIDDEN = /[\u0000-\u001f\u007f<>:"/\\|?*]/;

/**
 * A name the pipeline derives from an uploaded file's name (see the handlers), without its
 * `..km.` prefix (earlier versions wrote them without): extracted text, partitions, summaries
 * and their embeddings. Group 1 is the uploaded file's name.
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
 * Checks a file name: a single path segment, no `/`, `\`, control characters, no `..`; an
 * uploaded file's name at most {@link MAX_FILE_NAME_BYTES} (155) UTF-8 bytes, so that its
 * derived files (`..km.{name}.extract.txt`, `..km.{name}.partition.{n}.txt`, embeddings) fit
 * in the 255 bytes storage holds. Only km's own files (pipeline state, derived files) start
 * with `..km.` (see `INTERNAL_FILE_PREFIX`): an uploaded name never does, so it never
 * overwrites one. Returns the name unchanged; throws `invalid_file_name`.
 *
 * ```ts
 * validateFileName('report.pdf', { uploaded: true }); // 'report.pdf'
 * ```
 */
export function validateFileName(name: unknown, options: FileNameOptions = {}): string {
  if (typeof name !== 'string' || name.trim().length === 0) {
    throw new InvalidInputError('invalid_file_name', 'file name must be a non-empty string');
  }
  if (options.uploaded && isInternalFileName(name)) {
    throw new InvalidInputError(
      'invalid_file_name',
      `file name ${quote(name)} is invalid: names starting with "${INTERNAL_FILE_PREFIX}" are reserved for km's own files`,
    );
  }
  // An internal name is the prefix and a valid name: only the prefix may hold `..`.
  const plain = options.uploaded ? name : withoutInternalPrefix(name);
  if (plain === '' || FORBIDDEN.test(plain) || plain === '.' || plain.includes('..')) {
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

/**
 * The uploaded file's name a derived name comes from (`..km.a.pdf.partition.3.txt` and the
 * legacy `a.pdf.partition.3.txt` → `a.pdf`); the name without its `..km.` prefix otherwise.
 */
export function uploadedNameOf(name: string): string {
  const plain = withoutInternalPrefix(name);
  return DERIVED.exec(plain)?.[1] ?? plain;
}

/** The last segment of a path, for naming files imported from disk. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}

function quote(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
}
