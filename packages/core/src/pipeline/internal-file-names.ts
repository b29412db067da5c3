/**
 * Names of the files km writes next to a document's uploads in content storage
 * (`{index}/{documentId}/`): the pipeline state and every file derived from an upload. They all
 * start with {@link INTERNAL_FILE_PREFIX}, which no uploaded file name can have (upload names
 * may not contain `..`, see `validateFileName`), so an upload can never overwrite one, nor be
 * taken for one.
 *
 * Documents written before this scheme use the legacy names (`__pipeline_status.json`,
 * `{name}.extract.txt`, ...). Their derived files are read back through the names recorded in
 * their state; the state is read by `PipelineStatusStore`, which falls back to
 * {@link LEGACY_PIPELINE_STATUS_FILE}.
 */

/** Prefix of every file km writes in a document's folder: an uploaded name never has it. */
export const INTERNAL_FILE_PREFIX = '..km.';

/** The file holding a document's pipeline state. */
export const PIPELINE_STATUS_FILE = `${INTERNAL_FILE_PREFIX}pipeline_status.json`;

/** Where versions before the `..km.` prefix kept the pipeline state: read when the new file is absent, never written. */
export const LEGACY_PIPELINE_STATUS_FILE = '__pipeline_status.json';

/** True when `name` is a file km writes (pipeline state or a derived file), not an upload. */
export function isInternalFileName(name: string): boolean {
  return name.startsWith(INTERNAL_FILE_PREFIX);
}

/** `name` in km's namespace: unchanged when it already is (a name derived from an internal name stays single-prefixed). */
export function internalFileName(name: string): string {
  return isInternalFileName(name) ? name : `${INTERNAL_FILE_PREFIX}${name}`;
}

/** `name` without {@link INTERNAL_FILE_PREFIX} (a legacy or uploaded name is returned as is). */
export function withoutInternalPrefix(name: string): string {
  return isInternalFileName(name) ? name.slice(INTERNAL_FILE_PREFIX.length) : name;
}

/** Names of the files derived from an uploaded file `upload`. */
export const DerivedFileNames = {
  /** JSON of the sections extracted from `upload`: `..km.{upload}.extract.json`. */
  extractedContent: (upload: string): string => internalFileName(`${upload}.extract.json`),
  /** Plain text extracted from `upload`: `..km.{upload}.extract.txt`. */
  extractedText: (upload: string): string => internalFileName(`${upload}.extract.txt`),
  /** Partition `n` of `upload`: `..km.{upload}.partition.{n}.txt`. */
  partition: (upload: string, n: number): string => internalFileName(`${upload}.partition.${n}.txt`),
  /** Summary of `upload`: `..km.{upload}.summary.txt`. */
  summary: (upload: string): string => internalFileName(`${upload}.summary.txt`),
  /**
   * Embedding of the text file `source` (a partition or a summary, possibly with a legacy
   * name) by the generator `slug`: `..km.{upload}.partition.{n}.txt.{slug}.text_embedding`.
   */
  embedding: (source: string, slug: string): string => internalFileName(`${source}.${slug}.text_embedding`),
} as const;

/**
 * The name an earlier version gave the embedding of `source`, for reusing a vector it computed,
 * or undefined when `source` has a current name (its embedding never had another one).
 */
export function legacyEmbeddingFileName(source: string, slug: string): string | undefined {
  return isInternalFileName(source) ? undefined : `${source}.${slug}.text_embedding`;
}
