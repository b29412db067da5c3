import type { Readable } from 'node:stream';

/** Data accepted when writing a file. */
export type StorageContent = Uint8Array | string | Readable | AsyncIterable<Uint8Array>;

/** Bytes `start` to `end` of a file, both included (as in an HTTP `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

/** A file as listed by content storage. */
export interface StoredFileInfo {
  name: string;
  size: number;
  lastModified: Date;
}

/**
 * Where uploaded files, generated files and pipeline state live: one folder per index,
 * one folder per document inside it. Names are single path segments; implementations
 * refuse anything that could escape its folder.
 */
export interface IContentStorage {
  /** Creates an index folder if missing. */
  createIndexDirectory(index: string): Promise<void>;
  /** Deletes an index folder and everything in it; a no-op when missing. */
  deleteIndexDirectory(index: string): Promise<void>;
  /** Creates a document folder if missing. */
  createDocumentDirectory(index: string, documentId: string): Promise<void>;
  /** Deletes a document folder and its files; a no-op when missing. */
  deleteDocumentDirectory(index: string, documentId: string): Promise<void>;
  /** Removes every file of a document but keeps the folder. */
  emptyDocumentDirectory(index: string, documentId: string): Promise<void>;
  /** Writes a file atomically (readers see the old or the new content, never a mix). Returns its size. */
  writeFile(index: string, documentId: string, fileName: string, content: StorageContent): Promise<number>;
  /** Reads a whole file; throws `file_not_found` when missing. */
  readFile(index: string, documentId: string, fileName: string): Promise<Buffer>;
  /**
   * Opens a file as a stream; throws `file_not_found` when missing. With `range`, the stream
   * holds only bytes `range.start` to `range.end` (included; an `end` past the file ends at its
   * last byte), read without going through the bytes before or after them where the storage
   * can seek. Storages that set {@link IContentStorage.supportsByteRanges} honour `range`;
   * callers of other storages get the whole file and cut it themselves.
   */
  readFileStream(index: string, documentId: string, fileName: string, range?: ByteRange): Promise<Readable>;
  /** Where the files live, for logs and errors (a folder, a container, a bucket, a database); no secrets. */
  readonly location?: string;
  /** True when {@link IContentStorage.readFileStream} honours its `range` argument. */
  readonly supportsByteRanges?: boolean;
  /**
   * Optional, for storages shared by several machines: reads a file with its version (an ETag, a
   * generation, a row version), for a later {@link IContentStorage.writeFileIfVersion}; throws
   * `file_not_found` when missing. Core reads and writes the pipeline state through this pair
   * when both are present, so two workers cannot silently overwrite each other's state.
   */
  readFileVersion?(index: string, documentId: string, fileName: string): Promise<{ data: Buffer; version: string }>;
  /**
   * Optional (with {@link IContentStorage.readFileVersion}): writes a small file only if its stored
   * version is still `version` (`null`: only if the file does not exist), atomically; throws a
   * `write_conflict` KmError (transient) when another writer got there first. Returns the new version.
   */
  writeFileIfVersion?(
    index: string,
    documentId: string,
    fileName: string,
    content: Uint8Array | string,
    version: string | null,
  ): Promise<string>;
  /** True when the file exists. */
  fileExists(index: string, documentId: string, fileName: string): Promise<boolean>;
  /** Deletes a file; a no-op when missing. */
  deleteFile(index: string, documentId: string, fileName: string): Promise<void>;
  /** Files of a document; empty when the document is missing. */
  listFiles(index: string, documentId: string): Promise<StoredFileInfo[]>;
  /** Document ids of an index; empty when the index is missing. */
  listDocuments(index: string): Promise<string[]>;
  /**
   * Optional, for storages that can page: at most `limit` document ids of an index that sort
   * after `after` (all when undefined), in ascending order of their bytes (ids are ASCII);
   * empty when the index is missing. Listings of large indexes use it instead of
   * {@link IContentStorage.listDocuments}, which reads every id.
   */
  listDocumentsAfter?(index: string, after: string | undefined, limit: number): Promise<string[]>;
  /** Index folders. */
  listIndexes(): Promise<string[]>;
}
