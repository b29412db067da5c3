import { Readable } from 'node:stream';
import type { ByteRange, IContentStorage, StorageContent, StoredFileInfo } from '../contracts/content-storage.js';
import { KmError } from '../errors/km-error.js';
import { writeConflict } from './write-conflict.js';
import { contentToBuffer } from '../util/streams.js';
import { checkStorageNames } from './storage-names.js';

interface StoredFile {
  data: Buffer;
  lastModified: Date;
  /** Changes on every write: what conditional writes compare. */
  version: number;
}

let nextVersion = 1;

/**
 * Volatile content storage in process memory, for tests and short-lived tools.
 *
 * ```ts
 * const memory = new KernelMemoryBuilder().withContentStorage(new MemoryContentStorage()).build();
 * ```
 */
export class MemoryContentStorage implements IContentStorage {
  // index → documentId → fileName → file
  private readonly indexes = new Map<string, Map<string, Map<string, StoredFile>>>();

  async createIndexDirectory(index: string): Promise<void> {
    checkStorageNames(index);
    if (!this.indexes.has(index)) this.indexes.set(index, new Map());
  }

  async deleteIndexDirectory(index: string): Promise<void> {
    checkStorageNames(index);
    this.indexes.delete(index);
  }

  async createDocumentDirectory(index: string, documentId: string): Promise<void> {
    this.documentFolder(index, documentId, true);
  }

  async deleteDocumentDirectory(index: string, documentId: string): Promise<void> {
    checkStorageNames(index, documentId);
    this.indexes.get(index)?.delete(documentId);
  }

  async emptyDocumentDirectory(index: string, documentId: string): Promise<void> {
    this.documentFolder(index, documentId, false)?.clear();
  }

  async writeFile(index: string, documentId: string, fileName: string, content: StorageContent): Promise<number> {
    checkStorageNames(index, documentId, fileName);
    const data = Buffer.from(await contentToBuffer(content)); // own copy: callers may reuse their buffer
    this.documentFolder(index, documentId, true)!.set(fileName, { data, lastModified: new Date(), version: nextVersion++ });
    return data.length;
  }

  async readFileVersion(index: string, documentId: string, fileName: string): Promise<{ data: Buffer; version: string }> {
    const file = this.get(index, documentId, fileName);
    return { data: Buffer.from(file.data), version: String(file.version) };
  }

  async writeFileIfVersion(
    index: string,
    documentId: string,
    fileName: string,
    content: Uint8Array | string,
    version: string | null,
  ): Promise<string> {
    checkStorageNames(index, documentId, fileName);
    // Compared and replaced with no await in between: no other write can come between the two.
    const current = this.documentFolder(index, documentId, false)?.get(fileName);
    if ((current ? String(current.version) : null) !== version) throw writeConflict(index, documentId, fileName);
    const file = { data: Buffer.from(content), lastModified: new Date(), version: nextVersion++ };
    this.documentFolder(index, documentId, true)!.set(fileName, file);
    return String(file.version);
  }

  async readFile(index: string, documentId: string, fileName: string): Promise<Buffer> {
    return Buffer.from(this.get(index, documentId, fileName).data);
  }

  readonly supportsByteRanges: boolean = true;

  async readFileStream(index: string, documentId: string, fileName: string, range?: ByteRange): Promise<Readable> {
    const { data } = this.get(index, documentId, fileName);
    return Readable.from([range ? data.subarray(range.start, range.end + 1) : data]);
  }

  async fileExists(index: string, documentId: string, fileName: string): Promise<boolean> {
    checkStorageNames(index, documentId, fileName);
    return this.documentFolder(index, documentId, false)?.has(fileName) ?? false;
  }

  async deleteFile(index: string, documentId: string, fileName: string): Promise<void> {
    checkStorageNames(index, documentId, fileName);
    this.documentFolder(index, documentId, false)?.delete(fileName);
  }

  async listFiles(index: string, documentId: string): Promise<StoredFileInfo[]> {
    const folder = this.documentFolder(index, documentId, false);
    if (!folder) return [];
    return [...folder.entries()]
      .map(([name, f]) => ({ name, size: f.data.length, lastModified: f.lastModified }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async listDocuments(index: string): Promise<string[]> {
    checkStorageNames(index);
    return [...(this.indexes.get(index)?.keys() ?? [])].sort();
  }

  async listIndexes(): Promise<string[]> {
    return [...this.indexes.keys()].sort();
  }

  private documentFolder(index: string, documentId: string, create: boolean): Map<string, StoredFile> | undefined {
    checkStorageNames(index, documentId);
    let docs = this.indexes.get(index);
    if (!docs) {
      if (!create) return undefined;
      docs = new Map();
      this.indexes.set(index, docs);
    }
    let folder = docs.get(documentId);
    if (!folder && create) {
      folder = new Map();
      docs.set(documentId, folder);
    }
    return folder;
  }

  private get(index: string, documentId: string, fileName: string): StoredFile {
    checkStorageNames(index, documentId, fileName);
    const file = this.documentFolder(index, documentId, false)?.get(fileName);
    if (!file) {
      throw new KmError('file_not_found', `file "${fileName}" of document "${documentId}" in index "${index}" not found`);
    }
    return file;
  }
}
