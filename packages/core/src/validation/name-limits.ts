/**
 * Limits of the names that become paths in content storage: `{index}/{documentId}/{fileName}`.
 * Every limit counts UTF-8 bytes, because that is what file systems (255 bytes per path
 * segment on ext4, XFS, APFS, NTFS) and object stores count.
 */

/** Longest path segment every supported storage holds: a document folder or a file. */
export const MAX_PATH_SEGMENT_BYTES = 255;

/** Longest document id, in UTF-8 bytes (ids are ASCII, so also characters): one folder name. */
export const MAX_DOCUMENT_ID_BYTES = MAX_PATH_SEGMENT_BYTES;

/**
 * Room kept around an uploaded file's name for the names the pipeline derives from it. The
 * longest is a partition's embedding,
 * `..km.{name}.partition.{n}.txt.{model}.text_embedding`: 36 bytes plus the partition number
 * (up to 7 digits) plus the embedding model's slug (up to 57 bytes).
 */
export const DERIVED_FILE_SUFFIX_BYTES = 100;

/** Longest name of an uploaded file, in UTF-8 bytes: 255 minus the room for derived names. */
export const MAX_FILE_NAME_BYTES = MAX_PATH_SEGMENT_BYTES - DERIVED_FILE_SUFFIX_BYTES;

/** Size of a string in UTF-8 bytes. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
